import CGtk
import FoundationEssentials
import PeerKit
import PeerProtocol
import PeerSystem
import PeerTools

/// What the window's buttons, its file chooser and its drops do (issue
/// 45): each performs one request through PeerKit and redraws; the
/// decisions are the presentations'.
extension PeerWindow {
    /// A detail button was pressed.
    func clicked(_ button: UnsafeMutablePointer<GtkWidget>) {
        guard let command = buttonActions[button], let client, let peer = model?.selection else { return }
        let code = codeEntry.map { String(cString: gtk_editable_get_text(peerd_gtk_editable($0))) } ?? ""
        let text = messageEntry.map { String(cString: gtk_editable_get_text(peerd_gtk_editable($0))) } ?? ""
        let name = model?.selectedPeer?.name ?? "peer"
        Task { @MainActor in
            do {
                switch command {
                case .peer(.invite): _ = try await client.invite(peer)
                case .peer(.disconnect): _ = try await client.disconnect(peer)
                case .peer(.pair): try await client.pair(peer)
                case .peer(.unpair): try await client.unpair(peer)
                case .peer(.quickSaveOn):
                    guard let downloads = UserDownloads.current() else { return self.say("No home folder to save into: choose one with Quick Save into…") }
                    try await self.setQuickSave(peer, folder: UserDownloads.target(for: name, downloads: downloads))
                case .peer(.quickSaveChoose):
                    self.choosing = .quickSaveFolder(peer)
                    peerd_gtk_choose(self.window, 1, "Quick Save files from \(NotificationText.peerText(name)) into", "Choose", gtkPathsChosen,
                                     Unmanaged.passUnretained(self).toOpaque())
                case .peer(.quickSaveOff): try await self.setQuickSave(peer, folder: nil)
                case .confirmCode(let pairing): try await client.pairAccept(pairing, code: code)
                case .acceptInvitation(let invitation): _ = try await client.accept(invitation)
                case .declineInvitation(let invitation): _ = try await client.decline(invitation)
                case .saveFiles(let transfer, let folder):
                    guard let downloads = UserDownloads.current() else { return self.say("No home folder (HOME) to save into.") }
                    let into = UserDownloads.target(for: folder, downloads: downloads)
                    let moved = try await client.fetch(folder: folder, into: into)
                    self.inbox.saved(transfer, of: peer, into: into)
                    self.say(moved.failed.isEmpty ? "Saved \(moved.files == 1 ? "1 file" : "\(moved.files) files") in \(into)."
                             : "Saved \(moved.files) files in \(into); \(moved.failed.count) could not be moved (peerctl downloads).")
                    if let model = self.model { self.redraw(model) }
                case .openFolder(let transfer, let path):
                    // The user's file manager; the transfer's line goes once it is opened.
                    if Subprocess.start(["xdg-open", path], outputPath: "/dev/null") == nil { self.say("cannot run xdg-open \(path)") }
                    self.inbox.dismiss(transfer, of: peer)
                    if let model = self.model { self.redraw(model) }
                case .sendFiles:
                    let files = self.files
                    self.files = []
                    try await self.send(files, to: peer)
                case .chooseFiles:
                    self.choosing = .filesToSend(peer)
                    peerd_gtk_choose(self.window, 0, "Send files to \(NotificationText.peerText(name))", "Send", gtkPathsChosen,
                                     Unmanaged.passUnretained(self).toOpaque())
                case .sendMessage:
                    guard !text.isEmpty else { return }
                    _ = try await client.send(Array(text.utf8), to: peer)
                    if let entry = self.messageEntry { gtk_editable_set_text(peerd_gtk_editable(entry), "") }
                case .accept(let transfer): try await client.acceptTransfer(transfer)
                case .decline(let transfer): try await client.declineTransfer(transfer)
                }
            } catch {
                self.say("That did not work: \(error)")
            }
        }
    }

    /// The file chooser answered (`paths` empty: cancelled).
    func chosen(_ paths: [String]) {
        let purpose = choosing
        choosing = nil
        guard let purpose, !paths.isEmpty else { return }
        Task { @MainActor in
            do {
                switch purpose {
                case .filesToSend(let peer): try await self.send(paths, to: peer)
                case .quickSaveFolder(let peer): try await self.setQuickSave(peer, folder: paths[0])
                }
            } catch {
                self.say("That did not work: \(error)")
            }
        }
    }

    /// Files were dropped on the window: they go to the selected peer.
    func dropped(_ paths: [String]) {
        guard !paths.isEmpty else { return }
        guard let peer = model?.selection else { return say("Select a peer, then drop the files on it.") }
        Task { @MainActor in
            do { try await self.send(paths, to: peer) } catch { self.say("That did not work: \(error)") }
        }
    }

    /// Offers `paths` to `peer`, each a transfer (a folder is sent by
    /// `peerctl send-file`: the chooser gives files).
    private func send(_ paths: [String], to peer: UUID) async throws(PeerError) {
        guard let client else { return }
        for path in paths { _ = try await client.sendFile(path, to: peer) }
        say("Offered \(paths.count == 1 ? "1 file" : "\(paths.count) files"); the peer decides, or takes them by its Quick Save.")
    }

    /// Sets (nil: clears) `peer`'s Quick Save rule, and redraws with it.
    private func setQuickSave(_ peer: UUID, folder: String?) async throws(PeerError) {
        guard let client else { return }
        let record = try await client.setQuickSave(peer, folder: folder)
        say(record.quickSave.map { "Quick Save is on: files from \(NotificationText.peerText(record.name)) come into \($0.folder)." }
            ?? "Quick Save is off: files from \(NotificationText.peerText(record.name)) are offered first.")
        await refreshQuickSave()
    }

    /// Reads the paired peers' Quick Save rules again, and redraws.
    func refreshQuickSave() async {
        if let client, let paired = try? await client.paired() {
            quickSaveRules = Dictionary(paired.compactMap { record in record.quickSave.map { (record.uuid, $0) } }, uniquingKeysWith: { first, _ in first })
        }
        if let model { redraw(model) }
    }
}

/// The paths a chooser or a drop handed over, as Strings.
private func paths(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int32) -> [String] {
    guard let list, count > 0 else { return [] }
    return (0..<Int(count)).compactMap { list[$0].map { String(cString: $0) } }
}

/// The file chooser's answer: called from C on the main thread.
func gtkPathsChosen(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int32, _ context: gpointer?) {
    let (window, chosen) = (UInt(bitPattern: context), paths(list, count))
    guard window != 0 else { return }
    MainActor.assumeIsolated { peerWindow(window).chosen(chosen) }
}

/// Files dropped on the window: called from C on the main thread.
func gtkFilesDropped(_ list: UnsafePointer<UnsafePointer<CChar>?>?, _ count: Int32, _ context: gpointer?) {
    let (window, dropped) = (UInt(bitPattern: context), paths(list, count))
    guard window != 0 else { return }
    MainActor.assumeIsolated { peerWindow(window).dropped(dropped) }
}

extension PeerWindow {
    /// How often the selected peer's paths and round trip are asked for.
    static let detailsEvery: Duration = .seconds(2)

    /// Keeps the selected, connected peer's paths and round trip (`peer`)
    /// up to date: the lines change in place; a first answer, which adds
    /// lines, draws the detail again.
    func followDetails(_ client: PeerClient) async {
        while !Task.isCancelled {
            if let model, let peer = model.selection, (model.peerStates[peer] ?? model.selectedPeer?.state) == .connected,
               let answer = try? await client.peerDetails(peer), answer != details[peer] {
                details[peer] = answer
                // The facts' box changes in place, even when the answer
                // adds a fact; the buttons stay (PeerWindow.showDetail).
                showDetail(detailLayout(model))
            }
            try? await Task.sleep(for: Self.detailsEvery)
        }
    }
}
