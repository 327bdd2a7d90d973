/// A message inside an established session (the plaintext of one Noise
/// transport message). docs/protocol.md specifies every byte.
public enum WireMessage: Equatable, Sendable {
    /// Ask for a session: the inviter's display name, context, and how long it waits.
    case invite(name: String, context: [UInt8], timeoutMilliseconds: UInt32)
    /// The invitee accepts.
    case accept
    /// The invitee declines, with a reason and text.
    case decline(reason: CloseReason, text: String)
    /// Application data; `more` is set on every fragment but the last.
    case data(more: Bool, bytes: [UInt8])
    /// Keepalive probe.
    case ping(UInt64)
    /// Keepalive answer.
    case pong(UInt64)
    /// End of session, with a reason and text.
    case close(reason: CloseReason, text: String)
}
