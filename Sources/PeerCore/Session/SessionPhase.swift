/// Where one session is. Dialling and the handshake come first on both
/// sides; then the inviter waits for the answer while the invitee waits for
/// a client's decision.
package import PeerProtocol
package enum SessionPhase: Equatable, Sendable {
    /// The Noise handshake is running (5 s budget from the start).
    case handshaking
    /// Inviter: `invite` sent, waiting for `accept`/`decline`.
    case inviting
    /// Invitee: authenticated, waiting for the inviter's `invite`.
    case awaitingInvite
    /// Invitee: `invite` received, a client must decide.
    case awaitingDecision
    /// Accepted: data flows.
    case connected
    /// Over.
    case closed(CloseReason)
}
