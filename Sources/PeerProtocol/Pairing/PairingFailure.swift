/// Why a pairing did not complete. The wire carries the code.
public enum PairingFailure: String, Codable, Sendable, CaseIterable {
    /// A user said no.
    case rejected = "rejected"
    /// The code typed on the responder did not match.
    case wrongCode = "wrongCode"
    /// Nobody confirmed within the pairing timeout (60 s by default).
    case timedOut = "timedOut"
    /// The revealed nonce did not match its commitment: an attack or a bug.
    case commitmentMismatch = "commitmentMismatch"
    /// Too many wrong codes from this peer recently; try again later.
    case lockedOut = "lockedOut"
    /// A pairing message out of order or malformed.
    case protocolError = "protocolError"
    /// The session ended first.
    case sessionClosed = "sessionClosed"
    /// The responder could not store the trust (a full disk, say), so it
    /// confirmed nothing; neither side trusts the other.
    case storageFailed = "storageFailed"

    /// The one-byte wire code, fixed by the protocol (docs/protocol.md):
    /// written out, so reordering the cases can never change it.
    public var code: UInt8 {
        switch self {
        case .rejected: 1
        case .wrongCode: 2
        case .timedOut: 3
        case .commitmentMismatch: 4
        case .lockedOut: 5
        case .protocolError: 6
        case .sessionClosed: 7
        case .storageFailed: 8
        }
    }

    /// The reason for a wire code; unknown codes are protocol errors.
    public init(code: UInt8) {
        switch code {
        case 1: self = .rejected
        case 2: self = .wrongCode
        case 3: self = .timedOut
        case 4: self = .commitmentMismatch
        case 5: self = .lockedOut
        case 6: self = .protocolError
        case 7: self = .sessionClosed
        case 8: self = .storageFailed
        default: self = .protocolError
        }
    }
}
