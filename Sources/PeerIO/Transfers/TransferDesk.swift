import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// Files between peers (issue 12): the one face the daemon sees. It
/// routes the wire messages of docs/protocol.md §8 and the clients'
/// requests to the side that owns the transfer, and does nothing itself
/// (split by job in issue 21, point 8):
/// - ``OutgoingTransfers``: what this host sends;
/// - ``IncomingTransfers``: what it receives (with ``OfferIntake`` for
///   offers still arriving, and the ``DownloadRoot``);
/// - ``TransferHistory``: transfers that ended.
/// The sessions are the daemon's, asked for by peer (``TransferSurroundings``).
@MainActor
package final class TransferDesk {
    /// How long a client may take to send a manifest's parts, and a peer
    /// an offer's.
    static let manifestTimeout: TimeInterval = 60

    let outgoing: OutgoingTransfers
    let incoming: IncomingTransfers
    private let history: TransferHistory
    private let root: DownloadRoot
    private let surroundings: any TransferSurroundings

    /// Accepted offers, remembered in the state directory.
    var acceptances: AcceptanceStore { incoming.acceptances }

    /// A desk landing files under `downloads` and keeping its records in
    /// `stateDirectory`; `runtimeDirectory` is one emptied at boot (the
    /// control socket's), for the boot id when `/proc` does not show it.
    package init(downloads: String, stateDirectory: String, runtimeDirectory: String, offerTimeout: TimeInterval,
                partialLifetime: TimeInterval, policy: AutoAcceptPolicy, surroundings: any TransferSurroundings, logger: Logger, clock: DaemonClock) {
        self.surroundings = surroundings
        let history = TransferHistory(surroundings: surroundings, logger: logger)
        self.history = history
        root = DownloadRoot(path: downloads)
        outgoing = OutgoingTransfers(surroundings: surroundings, history: history, logger: logger, clock: clock)
        incoming = IncomingTransfers(root: root, acceptances: AcceptanceStore(stateDirectory: stateDirectory),
                                     bootID: BootIdentity.read(runtimeDirectory: runtimeDirectory), offerTimeout: offerTimeout,
                                     partialLifetime: partialLifetime, policy: policy, surroundings: surroundings, history: history,
                                     logger: logger, clock: clock)
    }

    // MARK: Sessions

    /// A session with the peer is up: unfinished transfers to it are offered again.
    package func sessionUp(_ session: any BulkSession) {
        guard let peer = session.peerUUID else { return }
        outgoing.sessionUp(session, peer: peer)
    }

    /// The default app joined `session`: its unfinished transfers to the
    /// peer, which waited while the session was an app's alone, are offered.
    package func defaultJoined(_ session: any BulkSession) {
        guard let peer = session.peerUUID else { return }
        outgoing.sessionUp(session, peer: peer, only: AppName.none)
    }

    /// The session with the peer ended: its transfers wait for the next
    /// (unless another session with the peer counts already).
    package func sessionDown(_ session: any BulkSession) {
        guard let peer = session.peerUUID else { return }
        let current = surroundings.session(for: peer)
        guard current == nil || current === session else { return }
        outgoing.sessionDown(peer)
        incoming.sessionDown(peer)
    }

    /// The transfers sending to `peer` now, in a stable order (for turns).
    func sendingFlows(to peer: UUID) -> [FlowID] { outgoing.sendingFlows(to: peer) }

    /// One turn of `flow` on `session`: up to `limit` bytes. Returns the bytes sent.
    @discardableResult
    func pump(_ flow: FlowID, on session: any BulkSession, limit: Int) -> Int { outgoing.pump(flow, on: session, limit: limit) }

    // MARK: The wire

    /// A transfer message arrived: to the side whose transfer it is, or,
    /// for a flow neither knows, as ``StrayFlowRule`` says.
    /// An `offer` is of `app` (the default app's when it came plain, not in `appFlow`).
    package func session(_ session: any BulkSession, bulk message: BulkMessage, app: AppName = .none) {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return }
        let flow = message.flow
        switch message {
        case .offer(_, let more, let totalFiles, let totalBytes, let files):
            incoming.offerArrived(session, peer: peer, peerID: peerID, flow: flow, part: files, more: more, totalFiles: totalFiles,
                                  totalBytes: totalBytes, app: app)
        case .answer, .credit, .transferDone:
            guard outgoing.owns(flow, peer: peer) else { return stray(session, flow, StrayFlowRule.of(message)) }
            outgoing.received(message, on: session)
        case .cancel:
            if outgoing.owns(flow, peer: peer) {
                outgoing.received(message, on: session)
            } else if incoming.owns(flow, peer: peer) {
                incoming.received(message, on: session)
            }
        case .block, .fileEnd:
            guard incoming.owns(flow, peer: peer) else { return stray(session, flow, StrayFlowRule.of(message)) }
            incoming.received(message, on: session)
        case .chunk, .streamOpen, .streamData, .streamEnd, .streamReset:
            break
        }
    }

    /// File bytes arrived (in place, valid only during the call).
    func chunk(_ flow: FlowID, file: UInt32, offset: UInt64, bytes: UnsafeRawBufferPointer, from peer: UUID, on session: any BulkSession) {
        guard incoming.owns(flow, peer: peer) else { return stray(session, flow, StrayFlowRule.chunk) }
        incoming.chunk(flow, file: file, offset: offset, bytes: bytes, on: session)
    }

    /// A message for a flow this side does not know (``StrayFlowRule``).
    private func stray(_ session: any BulkSession, _ flow: FlowID, _ rule: StrayFlowRule) {
        guard rule == .cancel else { return }
        session.sendBulk(.cancel(flow, reason: .protocolError, text: StrayFlowRule.cancelText))
    }

    // MARK: Clients

    /// `sendFile`: a part of a manifest of `app` with its descriptors.
    package func sendFile(to peer: PeerSnapshot, transfer id: String?, entries: [SendFileEntry], descriptors: [FileDescriptor],
                         more: Bool, app: AppName = .none) -> Result<TransferResult, ControlError> {
        outgoing.sendFile(to: peer, transfer: id, entries: entries, descriptors: descriptors, more: more, app: app)
    }

    // A client names, decides and sees only its own app's transfers (issue
    // 23, point 4): another app's id is not found.

    /// `acceptTransfer`.
    package func accept(_ id: String, files: [Int]?, app: AppName = .none) -> Result<TransferResult, ControlError> {
        incoming.accept(id, files: files, app: app)
    }

    /// `declineTransfer`.
    package func decline(_ id: String, app: AppName = .none) -> Result<TransferResult, ControlError> { incoming.decline(id, app: app) }

    /// `cancelTransfer`: either direction; partial files go.
    package func cancel(_ id: String, app: AppName = .none) -> Result<TransferResult, ControlError> {
        if let result = outgoing.cancel(id, app: app) ?? incoming.cancel(id, app: app) { return .success(result) }
        return .failure(ControlError(.notFound, "no transfer \(id) is in progress"))
    }

    /// `transfers`: in progress first, then recent ones, newest first; one
    /// with a page of its files (`offset`, `max`) when `id` is given.
    package func list(_ id: String?, offset: Int? = nil, max: Int? = nil, app: AppName = .none) -> Result<TransfersResult, ControlError> {
        let listing: TransferFileListing = id == nil ? .none : .page(offset: offset, max: max)
        let tag = app.isDefault ? nil : app.text
        let live = (outgoing.live(files: listing) + incoming.live(files: listing)).filter { $0.app == tag }
        let all = live + history.recent.reversed().filter { $0.app == tag }.map { ended in
            var brief = ended
            if id == nil {
                (brief.files, brief.filesOmitted) = (nil, nil)
            } else if let summary = ended.files {
                // An ended transfer keeps only its summary: the page is the
                // part of it from `offset`, so paging ends (issue 42, point 5).
                let range = FileListingPage.page(count: summary.count, offset: offset.map { start in summary.firstIndex { $0.index >= start } ?? summary.count },
                                                 max: max, nameSize: { summary[$0].name.utf8.count })
                brief.files = Array(summary[range])
                brief.filesOmitted = ended.totalFiles - range.count
            }
            return brief
        }
        guard let id else { return .success(TransfersResult(transfers: all)) }
        let found = all.filter { $0.id.hasPrefix(id.lowercased()) }
        guard !found.isEmpty else { return .failure(ControlError(.notFound, "no transfer \(id)")) }
        return .success(TransfersResult(transfers: found))
    }

    // MARK: Time

    /// Clock tick: each side's deadlines (see ``OutgoingTransfers/tick(now:)``
    /// and ``IncomingTransfers/tick(now:)``).
    package func tick(now: Date) {
        incoming.tick(now: now)
        outgoing.tick(now: now)
    }

    /// Closes every descriptor (shutdown).
    package func stop() {
        outgoing.stop()
        incoming.stop()
        root.close()
    }
}
