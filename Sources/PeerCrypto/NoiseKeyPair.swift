/// An X25519 key pair for Noise.
package struct NoiseKeyPair: Sendable, Equatable {
    /// The 32-byte secret key.
    package let secretKey: [UInt8]
    /// The 32-byte public key.
    package let publicKey: [UInt8]

    /// The pair for a secret key.
    package init(secretKey: [UInt8]) {
        self.secretKey = secretKey
        publicKey = Sodium.x25519PublicKey(secret: secretKey)
    }

    /// A fresh random pair (ephemeral keys).
    package static func generate() -> NoiseKeyPair {
        NoiseKeyPair(secretKey: Sodium.randomBytes(32))
    }
}
