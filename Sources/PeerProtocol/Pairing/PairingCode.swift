/// The 6-digit verification code both sides of a pairing show.
///
/// Derivation (docs/security.md): `code = SHA-256(h ‖ Na ‖ Nb)`, its first 8
/// bytes read as a big-endian integer, modulo 1,000,000, written with 6
/// digits. `h` is the Noise handshake hash, which binds the code to both
/// static and both ephemeral keys; `Na` and `Nb` are 32-byte nonces, the
/// responder's committed (`SHA-256(Nb)`) before it sees `Na`, so a
/// man-in-the-middle cannot search for keys that make the codes agree.
package enum PairingCode {
    /// Nonce length in bytes.
    package static let nonceLength = 32

    /// The code for `handshakeHash`, `initiatorNonce` and `responderNonce`;
    /// `sha256` is the hash (the core library has no crypto of its own).
    package static func derive(handshakeHash: [UInt8], initiatorNonce: [UInt8], responderNonce: [UInt8],
                              sha256: ([UInt8]) -> [UInt8]) -> String {
        let digest = sha256(handshakeHash + initiatorNonce + responderNonce)
        let value = digest.prefix(8).reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let code = String(value % 1_000_000)
        return String(repeating: "0", count: 6 - code.count) + code
    }

    /// Whether `text` is six ASCII digits.
    package static func isWellFormed(_ text: String) -> Bool {
        text.utf8.count == 6 && text.utf8.allSatisfy { $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }
    }
}
