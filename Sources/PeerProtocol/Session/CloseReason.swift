/// Why a session ended (or never started): the reason carried by every
/// state change and by the wire `close` message.
public enum CloseReason: String, Codable, Sendable, CaseIterable {
    /// The invitee declined.
    case declined = "declined"
    /// The invitation was not answered in time.
    case timedOut = "timedOut"
    /// The Noise handshake failed or did not finish within 5 s.
    case handshakeFailed = "handshakeFailed"
    /// The peer's static key does not match the id it advertised.
    case identityMismatch = "identityMismatch"
    /// The peer closed the session.
    case closedByPeer = "closedByPeer"
    /// A local client closed it.
    case closedLocally = "closedLocally"
    /// The peer is gone: nothing heard for 15 s, or the connection broke
    /// without a `close` message.
    case keepaliveLost = "keepaliveLost"
    /// A message exceeded `--max-message`.
    case tooLarge = "tooLarge"
    /// The peer broke the wire protocol.
    case protocolError = "protocolError"
    /// Wire only: this connection lost the crossing-invitation rule to the
    /// other one between the same two peers. Never reported as a state change.
    case duplicate = "duplicate"
    /// The receiver cannot take messages now (its inbox is full, or could
    /// not be written): unacknowledged messages stay with the sender, who
    /// tries again later. Sent and reported as it is.
    case busy = "busy"

    /// The one-byte wire code, fixed by the protocol (docs/protocol.md):
    /// written out, so reordering the cases can never change it.
    public var code: UInt8 {
        switch self {
        case .declined: 1
        case .timedOut: 2
        case .handshakeFailed: 3
        case .identityMismatch: 4
        case .closedByPeer: 5
        case .closedLocally: 6
        case .keepaliveLost: 7
        case .tooLarge: 8
        case .protocolError: 9
        case .duplicate: 10
        case .busy: 11
        }
    }

    /// The reason for a wire code; unknown codes are protocol errors.
    public init(code: UInt8) {
        switch code {
        case 1: self = .declined
        case 2: self = .timedOut
        case 3: self = .handshakeFailed
        case 4: self = .identityMismatch
        case 5: self = .closedByPeer
        case 6: self = .closedLocally
        case 7: self = .keepaliveLost
        case 8: self = .tooLarge
        case 9: self = .protocolError
        case 10: self = .duplicate
        case 11: self = .busy
        default: self = .protocolError
        }
    }
}
