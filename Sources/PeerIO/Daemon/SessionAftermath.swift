import FoundationEssentials
import PeerCore
import PeerProtocol

/// What a session's end means, once ``SessionDirector`` has taken it out
/// of the ``SessionTable``: an endpoint that proved to be someone else's
/// leaves the row, a dial that failed goes on at the next endpoint or ends
/// the invitation (``DialRetry``, pure), a crossing lost waits for the
/// winner, a `busy` peer keeps its queue and is not dialled for a while,
/// and the row's state says why the session ended.
@MainActor
package final class SessionAftermath {
    private let identity: IdentityActor
    private let lane: IdentityLane
    private let directory: PeerDirectory
    private let opener: SessionOpener
    private let table: SessionTable
    private let queued: QueuedDelivery
    private let reconnect: ReconnectController
    private let logger: Logger
    private let emit: @MainActor (ControlEvent) -> Void
    private let clock: DaemonClock

    /// The aftermath of the sessions `opener` makes and `table` holds.
    package init(identity: IdentityActor, lane: IdentityLane, directory: PeerDirectory, opener: SessionOpener, table: SessionTable,
                queued: QueuedDelivery, reconnect: ReconnectController, logger: Logger,
                emit: @escaping @MainActor (ControlEvent) -> Void, clock: DaemonClock) {
        self.identity = identity
        self.lane = lane
        self.directory = directory
        self.opener = opener
        self.table = table
        self.queued = queued
        self.reconnect = reconnect
        self.logger = logger
        self.emit = emit
        self.clock = clock
    }

    /// `session` ended for `reason`; `wasCurrent` when it was its peer's
    /// current session.
    package func ended(_ session: PeerSession, reason: CloseReason, text: String, wasCurrent: Bool) {
        if reason == .identityMismatch { mismatched(session) }
        guard let peer = session.peerUUID, wasCurrent else { return }
        if session.isAuthenticated { directory.sessionEnded(peer, at: clock.now()) }
        // Unacknowledged queued messages stay on disk for the next session.
        queued.sessionEnded(peer)
        if reason == .duplicate {
            // The other side's dial wins the crossing rule; its connection comes.
            table.awaitCrossing(of: peer, until: clock.now().addingTimeInterval(opener.limits.handshakeTimeout * 2))
            return
        }
        switch DialRetry.next(dialledByUs: session.role == .inviter, authenticated: session.isAuthenticated, reason: reason,
                              remaining: session.remainingEndpoints.count) {
        case .notADial:
            break
        case .tryNext:
            if opener.dial(peer, endpoints: session.remainingEndpoints, expected: session.expectedPeerID,
                           context: session.inviteContext, timeout: session.inviteTimeout, pairing: session.isForPairing,
                           app: session.admission ?? .none) { return }
            fallthrough
        case .inviteFailed:
            logger.notice("invitation to \(peer.uuidString.lowercased()) failed: \(reason.rawValue): \(text)")
            emit(ControlEvent(seq: 0, type: .inviteFailed, time: clock.now(), peer: directory.row(peer), reason: reason, detail: text))
            return
        }
        if reason == .busy, !reconnect.wasRefusedAsBusy(peer) {
            // The peer's inbox is full: its queue waits here, and it is not
            // dialled for 30 s (it dials us once a client takes messages).
            logger.notice("'\(directory.row(peer)?.name ?? "peer")' is busy: \(text); its queued messages wait")
            if let peerID = session.remotePeerID { queued.peerBusy(peerID, text) }
            reconnect.peerWasBusy(peer, now: clock.now())
        }
        directory.setState(.notConnected, for: peer, reason: reason, detail: text)
    }

    /// The peer proved another key than the one advertised at that
    /// endpoint: clients hear of it, and the endpoint leaves the row (it is
    /// not merged again, nor reported again, while Avahi keeps the service).
    private func mismatched(_ session: PeerSession) {
        let info = IdentityMismatchInfo(peer: session.peerUUID, expected: session.expectedPeerID ?? "", actual: session.remotePeerID ?? "",
                                        address: session.remoteAddress)
        logger.warning("identity mismatch at \(session.remoteAddress): advertised \(info.expected), proved \(info.actual)")
        emit(ControlEvent(seq: 0, type: .identityMismatch, time: clock.now(), peer: session.peerUUID.flatMap(directory.row), mismatch: info))
        guard let endpoint = session.endpoint, let peer = session.peerUUID else { return }
        lane.submit { [weak self] in
            guard let self else { return }
            self.directory.apply(await self.identity.refuseEndpoint(endpoint, of: peer))
        }
    }
}
