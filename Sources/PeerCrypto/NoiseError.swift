/// Why a Noise operation failed. Any of these ends the handshake or session.
package enum NoiseError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A message was shorter than its tokens require.
    case truncated
    /// An AEAD tag did not verify: tampering, or the wrong key.
    case decryptFailed
    /// A DH produced the all-zero value (a low-order public key).
    case invalidPublicKey
    /// The 2^64 − 1 nonces of a cipher state are used up.
    case nonceExhausted
    /// A message would exceed the 65535-byte Noise limit.
    case messageTooLong(Int)
    /// The call does not fit the handshake's position (wrong side's turn, or done).
    case outOfOrder
    /// A key the pattern needs was not supplied.
    case missingKey(String)
    /// The peer's handshake payload (its ``PeerHello``) could not be read.
    case payload(String)
    /// The cipher library could not seal a frame (it failed inside OpenSSL).
    case sealFailed

    /// A sentence for logs.
    package var description: String {
        switch self {
        case .truncated: return "Noise message truncated"
        case .decryptFailed: return "Noise decryption failed (bad tag)"
        case .invalidPublicKey: return "invalid (low-order) public key"
        case .nonceExhausted: return "Noise nonce space exhausted"
        case .messageTooLong(let n): return "Noise message of \(n) bytes exceeds 65535"
        case .outOfOrder: return "Noise handshake message out of order"
        case .missingKey(let which): return "Noise key missing: \(which)"
        case .payload(let why): return "the peer's hello cannot be read: \(why)"
        case .sealFailed: return "the cipher library could not seal a frame"
        }
    }
}
