import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// The sending side of the desk (issue 12; split by job in issue 21,
/// point 8): every ``OutgoingTransfer`` and all that is written to one. A
/// client's manifest becomes an offer; the receiver's answer, credit and
/// end move it on; a new session with its peer offers it again.
@MainActor
final class OutgoingTransfers {
    /// The transfers, by flow; nothing else holds them.
    private(set) var outgoing: [FlowID: OutgoingTransfer] = [:]
    private let surroundings: any TransferSurroundings
    private let history: TransferHistory
    private let logger: Logger
    private let clock: DaemonClock

    /// The sending side; ends go to `history`.
    init(surroundings: any TransferSurroundings, history: TransferHistory, logger: Logger, clock: DaemonClock) {
        self.surroundings = surroundings
        self.history = history
        self.logger = logger
        self.clock = clock
    }

    /// Whether `flow` is a transfer to `peer` sent from here.
    func owns(_ flow: FlowID, peer: UUID) -> Bool { outgoing[flow]?.peer == peer }

    // MARK: Sessions

    /// A session with the peer is up: every unfinished transfer to it is
    /// offered again, or, when the peer's release takes no files (or no
    /// apps, for an app's), ends here with nothing sent (docs/protocol.md
    /// §9). The default app's wait while the session is an app's alone.
    /// `only`: that app's transfers alone (the default app's, when it joins
    /// the session later: the apps' went when it came up).
    func sessionUp(_ session: any BulkSession, peer: UUID, only app: AppName? = nil) {
        let hello = session.remoteHello ?? .silent
        for transfer in outgoing.values where transfer.peer == peer && transfer.manifestComplete && !transfer.state.isFinished
            && (app == nil || transfer.app == app) {
            if let missing = [WireFeature.files, transfer.app.isDefault ? nil : .apps].compactMap({ $0 }).first(where: { !hello.speaks($0) }) {
                let refusal = ControlError.unsupported(missing, peer: transfer.peerName, release: hello.release)
                end(transfer, .failed, .unsupported, refusal.message)
                continue
            }
            if transfer.app.isDefault && !session.carriesDefault { continue }
            transfer.offered(hash: session.blockHash)
            for part in transfer.offerMessages() { session.sendBulk(part, app: transfer.app) }
            logger.info("transfer \(transfer.flow): offered to '\(transfer.peerName)'\(transfer.app.isDefault ? "" : " for app '\(transfer.app.text)'")")
        }
    }

    /// The session with `peer` ended: its transfers wait for the next.
    func sessionDown(_ peer: UUID) {
        for transfer in outgoing.values where transfer.peer == peer && transfer.state == .active || transfer.peer == peer && transfer.state == .offered && transfer.manifestComplete {
            transfer.state = .interrupted
            surroundings.transferEvent(.transferProgress, info(transfer))
        }
    }

    // MARK: Sending

    /// The transfers sending to `peer` now, in a stable order (for turns).
    func sendingFlows(to peer: UUID) -> [FlowID] {
        outgoing.values.filter { $0.peer == peer && $0.state == .active }.map(\.flow).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// One turn of `flow` on `session`: up to `limit` bytes. Returns the bytes sent.
    func pump(_ flow: FlowID, on session: any BulkSession, limit: Int) -> Int {
        guard let transfer = outgoing[flow] else { return 0 }
        let before = transfer.wireBytes
        let outcome = transfer.pump(into: session, limit: limit, now: clock.now(), report: { [unowned self] _ in
            surroundings.transferEvent(.transferProgress, info(transfer))
        }, failed: { [weak self, weak transfer] reason, text in
            // A read on the lane failed: the transfer ends, both sides.
            guard let self, let transfer, !transfer.state.isFinished else { return }
            surroundings.session(for: transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: reason, text: text))
            end(transfer, .failed, reason, text)
        })
        switch outcome {
        case .waiting, .sentAll:
            break
        case .failed(let reason, let text):
            session.sendBulk(.cancel(transfer.flow, reason: reason, text: text))
            end(transfer, .failed, reason, text)
        }
        return Int(transfer.wireBytes - before)
    }

    // MARK: The receiver's messages

    /// `answer`, `credit`, `transferDone` or `cancel` from the receiver, for
    /// a transfer of ours (``owns(_:peer:)``).
    func received(_ message: BulkMessage, on session: any BulkSession) {
        guard let transfer = outgoing[message.flow] else { return }
        let flow = transfer.flow
        switch message {
        case .answer(_, let more, let files):
            switch transfer.answered(files, more: more, now: clock.now()) {
            case .failure(let error):
                session.sendBulk(.cancel(flow, reason: .protocolError, text: error.message))
                end(transfer, .failed, .protocolError, "the receiver's answer: \(error.message)")
            case .success(false):
                break
            case .success(true):
                if transfer.accepted.files == 0 {
                    end(transfer, .declined, .declined, "the receiver accepted none of the files")
                } else {
                    logger.info("transfer \(flow): '\(transfer.peerName)' accepted \(transfer.accepted.files) of \(transfer.files.count) files")
                    surroundings.transferEvent(.transferProgress, info(transfer))
                    session.wantsBulkTurn()
                }
            }
        case .credit(_, let bytes):
            guard transfer.granted(bytes) else {
                session.sendBulk(.cancel(flow, reason: .protocolError, text: "credit past the largest window"))
                return end(transfer, .failed, .protocolError, "the receiver gave credit past the largest window")
            }
            session.wantsBulkTurn()
        case .transferDone:
            end(transfer, .completed, nil, nil)
        case .cancel(_, let reason, let text):
            end(transfer, reason == .declined ? .declined : (reason == .cancelled ? .cancelled : .failed), reason, "the receiver: \(text)")
        default:
            break
        }
    }

    // MARK: Clients

    /// `sendFile`: a part of a manifest with its descriptors, of `app`;
    /// the last part offers it at once when the peer is connected.
    func sendFile(to peer: PeerSnapshot, transfer id: String?, entries: [SendFileEntry], descriptors: [FileDescriptor],
                  more: Bool, app: AppName) -> Result<TransferResult, ControlError> {
        guard let peerID = peer.peerId else { return .failure(ControlError(.invalidParams, "'\(peer.name)' advertises no peer id")) }
        // A peer whose session said it takes no files (or no apps, for an
        // app's) is refused at once: nothing is sent, the session stays up.
        if let session = surroundings.session(for: peer.id), let hello = session.remoteHello {
            if !hello.speaks(.files) { return .failure(.unsupported(.files, peer: peer.name, release: hello.release)) }
            if !app.isDefault, !hello.speaks(.apps) { return .failure(.unsupported(.apps, peer: peer.name, release: hello.release)) }
            if app.isDefault, session.isConnected, !session.carriesDefault {
                return .failure(.appOnly(peer.name, app: session.admission))
            }
        }
        for (entry, descriptor) in zip(entries, descriptors) {
            guard case .success = TransferPath.check(entry.name) else {
                return .failure(ControlError(.invalidParams, "'\(entry.name)' is not a name a receiver accepts"))
            }
            guard let info = try? descriptor.status(), info.st_mode & S_IFMT == S_IFREG else {
                return .failure(ControlError(.invalidParams, "'\(entry.name)' is not a regular file"))
            }
            guard Int64(info.st_size) == entry.size, Int64(info.st_mtim.tv_sec) == entry.mtime else {
                return .failure(ControlError(.invalidParams, "'\(entry.name)' does not match its descriptor's size and time"))
            }
        }
        let transfer: OutgoingTransfer
        if let id, let flow = FlowID(hex: id), let known = outgoing[flow] {
            guard known.peer == peer.id, known.app == app, !known.manifestComplete else {
                return .failure(ControlError(.invalidParams, "transfer \(id) is not taking more files"))
            }
            transfer = known
        } else {
            let flow: FlowID
            if let id {
                guard let given = FlowID(hex: id) else { return .failure(ControlError(.invalidParams, "a transfer id is 32 hexadecimal digits")) }
                flow = given
            } else {
                flow = FlowID(bytes: Sodium.randomBytes(FlowID.length))!
            }
            transfer = OutgoingTransfer(flow: flow, peer: peer.id, peerID: peerID, peerName: peer.name, app: app, now: clock.now())
            outgoing[flow] = transfer
        }
        let files = entries.map { OfferedFile(name: Array($0.name.utf8), size: $0.size, mode: $0.mode & 0o777, mtime: $0.mtime) }
        transfer.add(files, descriptors: descriptors, last: !more)
        guard transfer.files.count <= OfferCheck.maxFiles else {
            end(transfer, .failed, .busy, "more than \(OfferCheck.maxFiles) files")
            return .failure(ControlError(.invalidParams, "a transfer holds at most \(OfferCheck.maxFiles) files"))
        }
        if !more {
            if let session = surroundings.session(for: peer.id), session.isConnected {
                sessionUp(session, peer: peer.id)
            } else {
                transfer.state = .interrupted
            }
        }
        return .success(TransferResult(transfer: info(transfer)))
    }

    /// `cancelTransfer` of a transfer of `app` sent from here, if `id` names one.
    func cancel(_ id: String, app: AppName) -> TransferResult? {
        guard let transfer = TransferIDMatch.find(id, in: outgoing.filter { $0.value.app == app }) else { return nil }
        surroundings.session(for: transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .cancelled, text: "cancelled by the sender"))
        end(transfer, .cancelled, .cancelled, "cancelled here")
        return TransferResult(transfer: info(transfer))
    }

    /// The transfers in progress, as clients see them.
    func live(files listing: TransferFileListing) -> [TransferInfo] { outgoing.values.map { info($0, files: listing) } }

    // MARK: Time and the end

    /// Clock tick: manifests a client never finished within a minute end.
    func tick(now: Date) {
        for transfer in outgoing.values where !transfer.manifestComplete && now.timeIntervalSince(transfer.createdAt) > TransferDesk.manifestTimeout {
            end(transfer, .failed, .cancelled, "the client did not finish the list of files within \(Int(TransferDesk.manifestTimeout)) s")
        }
    }

    /// Closes every descriptor (shutdown).
    func stop() {
        for transfer in outgoing.values { transfer.closeAll() }
    }

    private func end(_ transfer: OutgoingTransfer, _ state: TransferState, _ reason: FlowEndReason?, _ detail: String?) {
        guard !transfer.state.isFinished else { return }
        transfer.state = state
        transfer.reason = reason
        transfer.detail = detail
        transfer.endedAt = clock.now()
        transfer.closeAll()
        outgoing[transfer.flow] = nil
        history.ended(info(transfer), kept: info(transfer, files: .summary))
    }

    /// What clients see of `transfer`.
    private func info(_ transfer: OutgoingTransfer, files listing: TransferFileListing = .none) -> TransferInfo {
        let report = transfer.meter.report
        let accepted = transfer.accepted
        var info = TransferInfo(id: transfer.flow.description, direction: .send, peer: transfer.peer, name: transfer.peerName, state: transfer.state,
                            totalFiles: transfer.files.count, totalBytes: transfer.totalBytes, acceptedFiles: accepted.files,
                            acceptedBytes: accepted.bytes, filesDone: report.files, bytes: report.bytes, rate: report.rate, eta: report.eta,
                            reason: transfer.reason, detail: transfer.detail,
                            files: nil)
        if let range = listing.range(count: transfer.files.count, nameSize: { transfer.files[$0].name.count }) {
            info.files = range.map { index in
                let file = transfer.files[index]
                return TransferFileInfo(index: index, name: String(decoding: file.name, as: UTF8.self), size: file.size,
                                        verdict: index < transfer.verdicts.count ? (transfer.verdicts[index]?.word ?? "pending") : "pending")
            }
            info.filesOmitted = transfer.files.count - range.count
        }
        info.wireBytes = transfer.wireBytes
        info.app = transfer.app.isDefault ? nil : transfer.app.text
        return info
    }
}
