/// An X25519 key pair for Noise.
public struct NoiseKeyPair: Sendable, Equatable {
    /// The 32-byte secret key.
    public let secretKey: [UInt8]
    /// The 32-byte public key.
    public let publicKey: [UInt8]

    /// The pair for a secret key.
    public init(secretKey: [UInt8]) {
        self.secretKey = secretKey
        publicKey = Sodium.x25519PublicKey(secret: secretKey)
    }

    /// A fresh random pair (ephemeral keys).
    public static func generate() -> NoiseKeyPair {
        NoiseKeyPair(secretKey: Sodium.randomBytes(32))
    }
}
