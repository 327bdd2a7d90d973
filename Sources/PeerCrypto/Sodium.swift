internal import CSodium

/// The libsodium calls peerd uses. `sodium_init` must run before any other
/// call (it picks implementations and seeds the RNG); it is idempotent.
package enum Sodium {
    /// Thrown when libsodium cannot initialise (no entropy source).
    package struct InitFailure: Error, CustomStringConvertible {
        /// Says what failed.
        package var description: String { "sodium_init failed: libsodium could not initialise" }
    }

    /// Initialises libsodium.
    package static func initialize() throws(InitFailure) {
        guard sodium_init() >= 0 else { throw InitFailure() }
    }

    /// `count` bytes from the system CSPRNG.
    package static func randomBytes(_ count: Int) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBytes { randombytes_buf($0.baseAddress!, $0.count) }
        return bytes
    }

    /// SHA-256 of `bytes`.
    package static func sha256(_ bytes: [UInt8]) -> [UInt8] {
        var digest = [UInt8](repeating: 0, count: Int(crypto_hash_sha256_BYTES))
        _ = digest.withUnsafeMutableBufferPointer { out in
            bytes.withUnsafeBufferPointer { input in crypto_hash_sha256(out.baseAddress!, input.baseAddress, UInt64(input.count)) }
        }
        return digest
    }

    /// The X25519 public key of a 32-byte secret key.
    package static func x25519PublicKey(secret: [UInt8]) -> [UInt8] {
        var publicKey = [UInt8](repeating: 0, count: Int(crypto_scalarmult_curve25519_BYTES))
        _ = publicKey.withUnsafeMutableBufferPointer { out in
            secret.withUnsafeBufferPointer { input in crypto_scalarmult_curve25519_base(out.baseAddress!, input.baseAddress!) }
        }
        return publicKey
    }

    /// HMAC-SHA256 of `message` under `key` (any key length).
    package static func hmacSHA256(key: [UInt8], _ message: [UInt8]) -> [UInt8] {
        var state = crypto_auth_hmacsha256_state()
        var mac = [UInt8](repeating: 0, count: Int(crypto_auth_hmacsha256_BYTES))
        key.withUnsafeBufferPointer { k in _ = crypto_auth_hmacsha256_init(&state, k.baseAddress!, k.count) }
        nonEmpty(message).withUnsafeBufferPointer { m in _ = crypto_auth_hmacsha256_update(&state, m.baseAddress!, UInt64(message.count)) }
        mac.withUnsafeMutableBufferPointer { out in _ = crypto_auth_hmacsha256_final(&state, out.baseAddress!) }
        return mac
    }

    /// X25519(secret, public). Nil when the result is all zeros (a
    /// low-order public key): the Noise handshake must then fail.
    package static func x25519(secret: [UInt8], public publicKey: [UInt8]) -> [UInt8]? {
        guard secret.count == 32, publicKey.count == 32 else { return nil }
        var shared = [UInt8](repeating: 0, count: 32)
        let result = shared.withUnsafeMutableBufferPointer { out in
            secret.withUnsafeBufferPointer { s in
                publicKey.withUnsafeBufferPointer { p in crypto_scalarmult_curve25519(out.baseAddress!, s.baseAddress!, p.baseAddress!) }
            }
        }
        return result == 0 ? shared : nil
    }

    /// ChaCha20-Poly1305 (IETF) encryption: ciphertext followed by the 16-byte tag.
    package static func aeadEncrypt(key: [UInt8], nonce: [UInt8], ad: [UInt8], plaintext: [UInt8]) -> [UInt8] {
        var out = [UInt8](repeating: 0, count: plaintext.count + Int(crypto_aead_chacha20poly1305_ietf_ABYTES))
        var length: UInt64 = 0
        _ = out.withUnsafeMutableBufferPointer { c in
            nonEmpty(plaintext).withUnsafeBufferPointer { m in
                nonEmpty(ad).withUnsafeBufferPointer { a in
                    nonce.withUnsafeBufferPointer { n in
                        key.withUnsafeBufferPointer { k in
                            crypto_aead_chacha20poly1305_ietf_encrypt(c.baseAddress!, &length, m.baseAddress!, UInt64(plaintext.count),
                                                                      a.baseAddress!, UInt64(ad.count), nil, n.baseAddress!, k.baseAddress!)
                        }
                    }
                }
            }
        }
        return Array(out.prefix(Int(length)))
    }

    /// ChaCha20-Poly1305 (IETF) decryption; nil when the tag does not verify.
    package static func aeadDecrypt(key: [UInt8], nonce: [UInt8], ad: [UInt8], ciphertext: [UInt8]) -> [UInt8]? {
        let tag = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)
        guard ciphertext.count >= tag else { return nil }
        var out = [UInt8](repeating: 0, count: max(1, ciphertext.count - tag))
        var length: UInt64 = 0
        let result = out.withUnsafeMutableBufferPointer { m in
            ciphertext.withUnsafeBufferPointer { c in
                nonEmpty(ad).withUnsafeBufferPointer { a in
                    nonce.withUnsafeBufferPointer { n in
                        key.withUnsafeBufferPointer { k in
                            crypto_aead_chacha20poly1305_ietf_decrypt(m.baseAddress!, &length, nil, c.baseAddress!, UInt64(ciphertext.count),
                                                                      a.baseAddress!, UInt64(ad.count), n.baseAddress!, k.baseAddress!)
                        }
                    }
                }
            }
        }
        return result == 0 ? Array(out.prefix(Int(length))) : nil
    }

    /// ChaCha20-Poly1305 (IETF) in place: encrypts the first `count` bytes
    /// of `buffer` where they are and writes the 16-byte tag right after
    /// them (`buffer` holds `count + 16` bytes). No allocation, no copy:
    /// the bulk path (libsodium allows the ciphertext over the plaintext).
    /// `ad` is the associated data (none for the session's frames; a
    /// datagram's clear header for the datagram path).
    package static func aeadSealInPlace(key: UnsafeRawBufferPointer, nonce: UInt64, buffer: UnsafeMutableRawBufferPointer, count: Int,
                                       ad: UnsafeRawBufferPointer? = nil) {
        precondition(buffer.count >= count + Int(crypto_aead_chacha20poly1305_ietf_ABYTES), "no room for the tag")
        withNonce(nonce) { npub in
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            _ = crypto_aead_chacha20poly1305_ietf_encrypt_detached(base, base + count, nil, base, UInt64(count),
                                                                    ad?.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(ad?.count ?? 0), nil, npub,
                                                                    key.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The other way: checks the tag in the last 16 bytes of `buffer` and
    /// decrypts the bytes before it where they are. False when the tag
    /// does not verify (the bytes are then left as they were).
    /// `ad` as for ``aeadSealInPlace(key:nonce:buffer:count:ad:)``.
    package static func aeadOpenInPlace(key: UnsafeRawBufferPointer, nonce: UInt64, buffer: UnsafeMutableRawBufferPointer,
                                       ad: UnsafeRawBufferPointer? = nil) -> Bool {
        let tag = Int(crypto_aead_chacha20poly1305_ietf_ABYTES)
        guard buffer.count >= tag else { return false }
        let count = buffer.count - tag
        return withNonce(nonce) { npub in
            let base = buffer.baseAddress!.assumingMemoryBound(to: UInt8.self)
            return crypto_aead_chacha20poly1305_ietf_decrypt_detached(base, nil, base, UInt64(count), base + count,
                                                                       ad?.baseAddress?.assumingMemoryBound(to: UInt8.self), UInt64(ad?.count ?? 0), npub,
                                                                       key.baseAddress!.assumingMemoryBound(to: UInt8.self)) == 0
        }
    }

    /// Overwrites `bytes` with zeros in a way the compiler keeps (key material).
    package static func wipe(_ bytes: UnsafeMutableRawBufferPointer) {
        guard let base = bytes.baseAddress, !bytes.isEmpty else { return }
        sodium_memzero(base, bytes.count)
    }

    /// The Noise nonce (32 zero bits, then the counter little-endian) on the stack.
    private static func withNonce<R>(_ nonce: UInt64, _ body: (UnsafePointer<UInt8>) -> R) -> R {
        var bytes: (UInt64, UInt64) = (0, 0)
        return withUnsafeMutableBytes(of: &bytes) { raw in
            for index in 0..<8 { raw[4 + index] = UInt8(truncatingIfNeeded: nonce >> (8 * UInt64(index))) }
            return body(raw.baseAddress!.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// C wants a valid pointer even for zero bytes; an empty array has none.
    private static func nonEmpty(_ bytes: [UInt8]) -> [UInt8] { bytes.isEmpty ? [0] : bytes }
}
