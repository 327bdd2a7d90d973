import FoundationEssentials
import PeerProtocol

/// The agent's decisions (issue 45, point 2): the daemon's events, the
/// notification server's reports and the clock come in; the notifications
/// to show, update or close, and the answers to give the daemon, go out
/// (``AgentAction``). No I/O: the shell (`peerd-agent`) performs them.
///
/// - An invitation shows Accept and Decline; a file offer, its sender,
///   count and size with Accept, Decline and Show; a pairing request,
///   "Enter code…"; a transfer that ends, what came of it, with "Open
///   folder" when it completed.
/// - One notification per invitation, transfer or pairing: a later event
///   replaces it (`replaces_id`), so an offer becomes its progress, then
///   its end; one settled elsewhere (accepted in `peerctl`, expired,
///   connected) is closed.
/// - Only the default app's traffic: an app with clients of its own
///   answers its own.
/// - A peer raises at most ``NotificationRate/burst`` at once; the rest
///   are counted in one notice per peer, which updates in place.
/// - A server without actions gets the words to answer with instead.
package struct NotificationPlanner: Sendable {
    /// Whether the server shows buttons (`actions`).
    package private(set) var serverHasActions = false
    /// Whether the server reads markup in bodies (`body-markup`).
    package private(set) var serverReadsMarkup = false
    private var ids: [NotificationKey: UInt32] = [:]
    private var keys: [UInt32: NotificationKey] = [:]
    /// Open invitations: their peer (a state change settles them) and expiry.
    private var invitations: [String: (peer: UUID, expires: Date)] = [:]
    /// Incoming transfers shown: the sender's name, the offer's expiry,
    /// and when progress was last shown.
    private var transfers: [String: (name: String, expires: Date?, progressAt: Date?)] = [:]
    /// Finished transfers whose notification is still up, at most
    /// ``maxFinished``: where their files went ("Open folder"), or, before
    /// they moved, where they wait ("Save to Downloads").
    private var finished: [String: Finished] = [:]
    /// Finished transfers remembered at most.
    package static let maxFinished = 256
    /// Notifications held back, by peer id.
    private var heldBack: [String: Int] = [:]
    private var rate = NotificationRate()
    /// Progress is shown at most this often (seconds).
    package static let progressEvery = 1.0

    /// A planner that knows nothing yet (no actions, no markup, until told).
    package init() {}

    /// The server's capabilities (`GetCapabilities`).
    package mutating func capabilities(_ names: [String]) {
        serverHasActions = names.contains("actions")
        serverReadsMarkup = names.contains("body-markup")
    }

    /// The server showed `key` as `id`.
    package mutating func shown(_ key: NotificationKey, id: UInt32) {
        if let old = ids[key], old != id { keys[old] = nil }
        ids[key] = id
        keys[id] = key
    }

    /// The server closed `id` (expired, dismissed, or closed by us).
    package mutating func closed(_ id: UInt32) {
        guard let key = keys.removeValue(forKey: id) else { return }
        if ids[key] == id { ids[key] = nil }
        if case .transfer(let transfer) = key { finished[transfer] = nil }
    }

    /// The user pressed `action` on notification `id`.
    package mutating func invoked(_ id: UInt32, action: String) -> [AgentAction] {
        switch (keys[id], action) {
        case (.invitation(let invitation)?, "accept"): return [.acceptInvitation(invitation)]
        case (.invitation(let invitation)?, "decline"): return [.declineInvitation(invitation)]
        case (.transfer(let transfer)?, "accept"): return [.acceptTransfer(transfer)]
        case (.transfer(let transfer)?, "decline"): return [.declineTransfer(transfer)]
        case (.transfer(let transfer)?, "show"), (.transfer(let transfer)?, "default"): return [.openApp(transfer)]
        case (.pairing(let pairing)?, "enter-code"), (.pairing(let pairing)?, "default"): return [.openApp(pairing)]
        case (.transfer(let transfer)?, "open-folder"):
            guard case .moved(let into)? = finished[transfer] else { return [] }
            return [.openFolder(into)]
        case (.transfer(let transfer)?, "save"):
            guard case .waiting(let peer, let name, let folder)? = finished[transfer] else { return [] }
            return [.moveFiles(transfer: transfer, peer: peer, name: name, folder: folder, byRule: false)]
        default: return []
        }
    }

    /// Closes what expired by `now`: invitations and offers nobody answered.
    package mutating func tick(now: Date) -> [AgentAction] {
        var out: [AgentAction] = []
        for (id, open) in invitations where open.expires <= now {
            invitations[id] = nil
            out += close(.invitation(id))
        }
        for (id, shown) in transfers where (shown.expires.map { $0 <= now }) ?? false {
            transfers[id]?.expires = nil
            out += close(.transfer(id))
        }
        return out
    }

    /// What waits for an answer when the agent starts (or after it missed
    /// events): each invitation, and each incoming offer, as if its event
    /// came now. One already shown is updated in place, not shown twice.
    package mutating func waiting(invitations: [InvitationInfo], transfers: [TransferInfo], now: Date) -> [AgentAction] {
        // Only offers prompt: one under way shows its progress when it moves.
        WaitingEvents.events(invitations: invitations, pairings: [], transfers: transfers.filter { $0.state == .offered }, now: now)
            .flatMap { event($0, now: now) }
    }

    /// A daemon event.
    package mutating func event(_ event: ControlEvent, now: Date) -> [AgentAction] {
        switch event.type {
        case .invitation:
            guard let invitation = event.invitation, invitation.app.map({ $0.isEmpty }) ?? true else { return [] }
            invitations[invitation.id] = (invitation.peer, invitation.expires)
            let context = invitation.context.isEmpty ? "" : "\n“\(NotificationText.peerText(invitation.context))”"
            return show(.invitation(invitation.id), peer: invitation.peerId, name: invitation.name, now: now,
                        summary: "\(NotificationText.peerText(invitation.name)) invites you",
                        body: "A session with this host.\(context)",
                        buttons: [NotificationButton("accept", "Accept"), NotificationButton("decline", "Decline")],
                        otherwise: "peerctl accept \(invitation.id)", waits: true)
        case .stateChanged, .peerLost:
            // The invitation was answered (here or elsewhere), or the peer went.
            guard let peer = event.peer?.id else { return [] }
            var out: [AgentAction] = []
            for (id, open) in invitations where open.peer == peer {
                invitations[id] = nil
                out += close(.invitation(id))
            }
            return out
        case .transferOffered:
            guard let transfer = event.transfer, transfer.direction == .receive, transfer.app == nil else { return [] }
            transfers[transfer.id] = (transfer.name, transfer.expires, nil)
            let files = NotificationText.files(count: transfer.totalFiles, bytes: transfer.totalBytes, firstName: transfer.files?.first?.name)
            return show(.transfer(transfer.id), peer: transfer.peer.uuidString, name: transfer.name, now: now,
                        summary: "\(NotificationText.peerText(transfer.name)) offers files", body: files,
                        buttons: [NotificationButton("accept", "Accept"), NotificationButton("decline", "Decline"), NotificationButton("show", "Show")],
                        otherwise: "peerctl accept-transfer \(transfer.id)", waits: true)
        case .transferProgress:
            guard let transfer = event.transfer, transfer.direction == .receive, let id = ids[.transfer(transfer.id)],
                  var shown = transfers[transfer.id] else { return [] }
            if let last = shown.progressAt, now.timeIntervalSince(last) < Self.progressEvery { return [] }
            shown.progressAt = now
            shown.expires = nil
            transfers[transfer.id] = shown
            let total = max(transfer.acceptedBytes, 1)
            let percent = Int(min(100, max(0, transfer.bytes * 100 / total)))
            return [.notify(NotificationRequest(key: .transfer(transfer.id), replacing: id,
                                                summary: "Receiving from \(NotificationText.peerText(shown.name))",
                                                body: body("\(percent)%: \(ProgressLine.bytes(transfer.bytes)) of \(ProgressLine.bytes(transfer.acceptedBytes)), \(transfer.filesDone) of \(transfer.acceptedFiles) files"),
                                                progress: percent))]
        case .transferCompleted where event.transfer?.acceptedBy == TransferAcceptance.quickSave.rawValue && event.transfer?.app == nil:
            // Landed by the peer's Quick Save rule: moved first, told after.
            guard let transfer = event.transfer, transfer.direction == .receive, let folder = transfer.folder else { return [] }
            transfers[transfer.id] = nil
            return [.moveFiles(transfer: transfer.id, peer: transfer.peer, name: transfer.name, folder: folder, byRule: true)]
        case .transferCompleted, .transferFailed:
            guard let transfer = event.transfer, transfer.direction == .receive, transfer.app == nil else { return [] }
            transfers[transfer.id] = nil
            let name = NotificationText.peerText(transfer.name)
            if event.type == .transferFailed, [.declined, .timedOut].contains(transfer.reason) {
                // Settled without us: the offer's prompt goes.
                return close(.transfer(transfer.id))
            }
            // The files wait in the service's downloads, which the user
            // cannot open: "Save to Downloads" moves them out (``moved``).
            let folder = transfer.folder ?? ""
            let done = event.type == .transferCompleted
            if done, !folder.isEmpty { remember(transfer.id, .waiting(peer: transfer.peer, name: transfer.name, folder: folder)) }
            let summary = done ? "Received from \(name)" : "Transfer from \(name) failed"
            let text = done ? NotificationText.files(count: transfer.filesDone, bytes: transfer.bytes, firstName: nil)
                            : NotificationText.peerText(transfer.detail ?? transfer.reason?.rawValue ?? "it ended")
            return show(.transfer(transfer.id), peer: transfer.peer.uuidString, name: transfer.name, now: now, summary: summary, body: text,
                        buttons: done && !folder.isEmpty ? [NotificationButton("save", "Save to Downloads")] : [],
                        otherwise: done && !folder.isEmpty ? "peerctl fetch \(folder)" : nil, waits: false)
        case .pairingRequest:
            guard let pairing = event.pairing else { return [] }
            return show(.pairing(pairing.id), peer: pairing.peerId, name: pairing.name, now: now,
                        summary: "\(NotificationText.peerText(pairing.name)) asks to pair",
                        body: "Type the code that \(NotificationText.peerText(pairing.name)) shows.",
                        buttons: [NotificationButton("enter-code", "Enter code…")],
                        otherwise: "peerctl pair-accept", waits: true)
        case .paired, .pairingFailed:
            guard let pairing = event.pairing else { return [] }
            return close(.pairing(pairing.id))
        default:
            return []
        }
    }

    /// The shell moved the files from `name`'s folder into `into`
    /// (``AgentAction/moveFiles(transfer:peer:name:folder:byRule:)``):
    /// `files` and `bytes` moved, `failed` left in the download directory.
    /// Says so in the transfer's notification, with "Open folder" on
    /// `into`, and "(Quick Save)" when the rule moved them; nothing for a
    /// rule's move that found nothing (another agent of this user took it).
    package mutating func moved(transfer: String, peer: UUID, name: String, into: String, files: Int, bytes: Int64, failed: Int,
                                byRule: Bool, now: Date) -> [AgentAction] {
        guard files > 0 || failed > 0 || !byRule else { return [] }
        if files > 0 { remember(transfer, .moved(into: into)) }
        var text = files > 0 || failed > 0 ? "\(NotificationText.files(count: files, bytes: bytes, firstName: nil)) in \(into)"
                                           : "Nothing left to save: the files were taken already"
        if failed > 0 { text += "\n\(failed) could not be moved: they wait in peerd's downloads (peerctl downloads)" }
        return show(.transfer(transfer), peer: peer.uuidString, name: name, now: now,
                    summary: "Saved from \(NotificationText.peerText(name))\(byRule ? " (Quick Save)" : "")", body: text,
                    buttons: files > 0 ? [NotificationButton("open-folder", "Open folder")] : [], otherwise: files > 0 ? into : nil, waits: false)
    }

    /// The shell could not move the files from `name`'s folder (`folder`
    /// in the service's downloads) into `into`: says why, and that they
    /// wait where they landed, in the transfer's notification.
    package mutating func moveFailed(transfer: String, peer: UUID, name: String, folder: String, into: String, reason: String,
                                     byRule: Bool, now: Date) -> [AgentAction] {
        show(.transfer(transfer), peer: peer.uuidString, name: name, now: now,
             summary: "Could not save from \(NotificationText.peerText(name))\(byRule ? " (Quick Save)" : "")",
             body: "\(NotificationText.peerText(reason)) (into \(into)). The files wait in peerd's downloads: peerctl fetch \(folder)",
             buttons: [], otherwise: nil, waits: false)
    }

    /// Keeps what a finished transfer's buttons need, within ``maxFinished``.
    private mutating func remember(_ transfer: String, _ state: Finished) {
        if finished[transfer] == nil, finished.count >= Self.maxFinished, let any = finished.keys.first { finished[any] = nil }
        finished[transfer] = state
    }

    /// A notification for `key`, within `peer`'s rate: it replaces the one
    /// `key` has. Past the rate, the peer's held-back notice instead.
    /// `otherwise`: the words to answer with where the server has no buttons.
    private mutating func show(_ key: NotificationKey, peer: String, name: String, now: Date, summary: String, body text: String,
                               buttons: [NotificationButton], otherwise: String?, waits: Bool) -> [AgentAction] {
        let replacing = ids[key]
        // An update of one already shown is not a new notification.
        guard replacing != nil || rate.allow(peer, now: now) else {
            let count = (heldBack[peer] ?? 0) + 1
            heldBack[peer] = count
            return [.notify(NotificationRequest(key: .heldBack(peer), replacing: ids[.heldBack(peer)],
                                                summary: "\(NotificationText.peerText(name)): \(count) more held back",
                                                body: body("Too many at once from this peer. See them with: peerctl transfers; peerctl invitations")))]
        }
        var words = text
        if !serverHasActions, let otherwise, !buttons.isEmpty { words += "\n" + otherwise }
        return [.notify(NotificationRequest(key: key, replacing: replacing, summary: summary, body: body(words),
                                            actions: serverHasActions ? buttons : [], waitsForAnswer: waits))]
    }

    private func body(_ text: String) -> String { NotificationText.body(text, markup: serverReadsMarkup) }

    /// Closes `key`'s notification, if it has one.
    private mutating func close(_ key: NotificationKey) -> [AgentAction] {
        guard let id = ids.removeValue(forKey: key) else { return [] }
        keys[id] = nil
        return [.close(id)]
    }
}
