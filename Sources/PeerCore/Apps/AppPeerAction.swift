/// What the shell does for an ``AppPeerLifecycle`` (issue 23, point 3).
package import PeerProtocol
package enum AppPeerAction: Sendable, Equatable {
    /// Invite the peer's app, with this context and timeout (milliseconds).
    case sendInvite(context: [UInt8], timeoutMilliseconds: UInt32)
    /// Accept the peer's invitation.
    case sendAccept
    /// Decline the peer's invitation.
    case sendDecline(AppEndReason)
    /// Tell the peer this app's state with it ended.
    case sendLeave(AppEndReason)
    /// Ask this host's clients of the app to decide on the invitation.
    case askClients(context: [UInt8])
    /// The peer invited again while its invitation waits for a client: the
    /// one waiting takes the new context and deadline, under its own id
    /// (one invitation per app and peer, issue 42, point 3).
    case updateAsk(context: [UInt8])
    /// Decline the peer's invitation as one past the invitation rate.
    case declineOverRate
    /// The state clients see changed (an event for them).
    case stateChanged(ConnectionState, reason: AppEndReason?)
}
