import CSodium

/// The libsodium calls peerd uses. `sodium_init` must run before any other
/// call (it picks implementations and seeds the RNG); it is idempotent.
public enum Sodium {
    /// Thrown when libsodium cannot initialise (no entropy source).
    public struct InitFailure: Error, CustomStringConvertible {
        /// Says what failed.
        public var description: String { "sodium_init failed: libsodium could not initialise" }
    }

    /// Initialises libsodium.
    public static func initialize() throws(InitFailure) {
        guard sodium_init() >= 0 else { throw InitFailure() }
    }

    /// `count` bytes from the system CSPRNG.
    public static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return bytes
    }

    /// SHA-256 of `bytes`.
    public static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = digest.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in crypto_hash_sha256(out.baseAddress!, input.baseAddress, UInt64(input.count)) }
        }
        return digest
    }

    /// The X25519 public key of a 32-byte secret key.
    public static func x25519PublicKey(secret: [UInt8]) -> [UInt8] {
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_BYTES))
        _ = publicKey.withUnsafeMutableBufferPointer { out in
            secret.withUnsafeBufferPointer { input in crypto_scalarmult_curve25519_base(out.baseAddress!, input.baseAddress!) }
        }
        return publicKey
    }
}
