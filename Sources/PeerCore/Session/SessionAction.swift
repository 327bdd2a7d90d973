/// What the I/O layer must do for one session.
package import PeerProtocol
package enum SessionAction: Equatable, Sendable {
    /// Encrypt and send this message.
    case send(WireMessage)
    /// Ask local clients to accept or decline an invitation.
    case requestDecision(name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool)
    /// The session is up: report `connected`.
    case established
    /// A whole application message arrived.
    case deliver([UInt8])
    /// A whole application message arrived under the peer's app number
    /// (`appData`; the session's bindings name the app).
    case deliverApp(UInt16, [UInt8])
    /// Flush what was sent, close the socket, report the reason.
    case finish(CloseReason, String)
}
