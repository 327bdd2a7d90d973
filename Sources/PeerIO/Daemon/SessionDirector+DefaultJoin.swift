import FoundationEssentials
import PeerCore
import PeerProtocol

/// The default app joining a session accepted for an app alone (issue 23;
/// docs/protocol.md §10, "The default app joins"): the peer's invitation
/// is decided by the default app's rules, as a session's `invite` is, and
/// once joined the session does what a default-app session does when it
/// comes up.
extension SessionDirector {
    /// What the session's ``DefaultAppJoin`` hands over.
    package func session(_ session: PeerSession, join action: DefaultAppJoin.Action) {
        guard let peer = session.peerUUID, table.isCurrent(session) else { return }
        let name = directory.row(peer)?.name ?? session.remotePeerID ?? "peer"
        switch action {
        case .decide(let context, let timeoutSeconds):
            invitations.arrived(session, peer: peer, name: name, context: context, timeoutSeconds: timeoutSeconds,
                                facts: .init(policyAccepts: trust.acceptsAutomatically(session.remotePeerID),
                                             paired: trust.isPaired(session.remotePeerID), subscribers: control.subscriberCount),
                                join: true, now: clock.now())
        case .joined:
            invitations.settled(session)
            logger.info("the default app joined the session with '\(name)'")
            // The row was connected already: clients waiting on the
            // invitation hear it connected, for the default app now.
            directory.restate(peer, detail: "the default app joined the session")
            drainQueue(for: peer)
            bulk.defaultJoined(session)
        case .failed(let reason, let detail):
            logger.notice("the default app's invitation to '\(name)' ended: \(reason.rawValue): \(detail)")
            emit(ControlEvent(seq: 0, type: .inviteFailed, time: clock.now(), peer: directory.row(peer),
                              reason: reason == .timedOut ? .timedOut : .declined, detail: detail))
        case .withdrawn:
            invitations.settled(session)
        case .sendInvite, .sendAccept, .sendDecline, .sendLeave:
            break
        }
    }
}
