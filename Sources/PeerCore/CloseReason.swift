/// Why a session ended (or never started): the reason carried by every
/// state change and by the wire `close` message.
public enum CloseReason: String, Codable, Sendable, CaseIterable {
    /// The invitee declined.
    case declined
    /// The invitation was not answered in time.
    case timedOut
    /// The Noise handshake failed or did not finish within 5 s.
    case handshakeFailed
    /// The peer's static key does not match the id it advertised.
    case identityMismatch
    /// The peer closed the session.
    case closedByPeer
    /// A local client closed it.
    case closedLocally
    /// The peer is gone: nothing heard for 15 s, or the connection broke
    /// without a `close` message.
    case keepaliveLost
    /// A message exceeded `--max-message`.
    case tooLarge
    /// The peer broke the wire protocol.
    case protocolError
    /// Wire only: this connection lost the crossing-invitation rule to the
    /// other one between the same two peers. Never reported as a state change.
    case duplicate
    /// The receiver cannot take messages now (its inbox is full, or could
    /// not be written): unacknowledged messages stay with the sender, who
    /// tries again later. Sent and reported as it is.
    case busy

    /// The one-byte wire code.
    public var code: UInt8 {
        UInt8(Self.allCases.firstIndex(of: self)! + 1)
    }

    /// The reason for a wire code; unknown codes are protocol errors.
    public init(code: UInt8) {
        let index = Int(code) - 1
        self = Self.allCases.indices.contains(index) ? Self.allCases[index] : .protocolError
    }
}
