/// Why a pairing did not complete. The wire carries the code.
public enum PairingFailure: String, Codable, Sendable, CaseIterable {
    /// A user said no.
    case rejected
    /// The code typed on the responder did not match.
    case wrongCode
    /// Nobody confirmed within the pairing timeout (60 s by default).
    case timedOut
    /// The revealed nonce did not match its commitment: an attack or a bug.
    case commitmentMismatch
    /// Too many wrong codes from this peer recently; try again later.
    case lockedOut
    /// A pairing message out of order or malformed.
    case protocolError
    /// The session ended first.
    case sessionClosed
    /// The responder could not store the trust (a full disk, say), so it
    /// confirmed nothing; neither side trusts the other.
    case storageFailed

    /// The one-byte wire code.
    public var code: UInt8 { UInt8(Self.allCases.firstIndex(of: self)! + 1) }

    /// The failure for a wire code; unknown codes are protocol errors.
    public init(code: UInt8) {
        let index = Int(code) - 1
        self = Self.allCases.indices.contains(index) ? Self.allCases[index] : .protocolError
    }
}
