import CCrypto
import CSodium
import Glibc
import PeerIO

/// The cryptographic primitives of the data plane, on one core, a full
/// frame at a time (issue 25, point 1): each library called directly,
/// next to peerd's own path to it (``NoiseCipherState`` sealing and
/// opening in place, ``Blake2b`` fed a block). The gap between a library
/// and peerd's path is the calling cost: copies, allocations, bridging.
enum Primitives {
    /// The largest plaintext of one Noise frame: what bulk data fills.
    static let frame = NoiseCipherState.maxMessageLength - NoiseCipherState.tagLength
    /// Bytes each measurement handles: long enough to swamp the clock's
    /// cost, short enough for a run of a fraction of a second.
    static let volume = 256 << 20

    /// The three figures, each a comparison of its variants.
    static func comparisons() -> [Comparison] {
        try? Sodium.initialize()
        return [
            Comparison(name: "primitive: ChaCha20-Poly1305 seal, 64 KiB frames, one core", unit: "MiB/s", variants: [
                ("peerd's path (NoiseCipherState in place)", { rate { sealPath() } }),
                ("OpenSSL 3 EVP, called directly", { rate { openSSLSeal() } }),
                ("libsodium, called directly", { rate { sodiumSeal() } }),
            ]),
            Comparison(name: "primitive: ChaCha20-Poly1305 open, 64 KiB frames, one core", unit: "MiB/s", variants: [
                ("peerd's path (NoiseCipherState in place)", { rate { openPath() } }),
                ("libsodium, called directly", { rate { sodiumOpen() } }),
            ]),
            Comparison(name: "primitive: BLAKE2b, 64 KiB blocks, one core", unit: "MiB/s", variants: [
                ("peerd's path (Blake2b, BLAKE2b-256)", { rate { hashPath() } }),
                ("libsodium crypto_generichash, called directly", { rate { sodiumHash() } }),
                ("OpenSSL 3 EVP BLAKE2B-512, called directly", { rate { openSSLHash() } }),
            ]),
        ]
    }

    /// MiB/s of one run of `body`, which handles ``volume`` bytes.
    private static func rate(_ body: () -> Void) -> Double? {
        let clock = ContinuousClock()
        let elapsed = clock.measure(body)
        let seconds = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
        return seconds > 0 ? Double(volume) / 1_048_576 / seconds : nil
    }

    private static var rounds: Int { volume / frame }
    private static let key = Sodium.randomBytes(32)

    private static func sealPath() {
        var cipher = NoiseCipherState(key: key)
        var buffer = Sodium.randomBytes(frame + NoiseCipherState.tagLength)
        for _ in 0..<rounds { try? cipher.sealInPlace(&buffer, offset: 0, count: frame) }
    }

    private static func openPath() {
        var sealer = NoiseCipherState(key: key)
        let sealed = (try? sealer.encrypt(ad: [], Sodium.randomBytes(frame))) ?? []
        var buffer = sealed
        for _ in 0..<rounds {
            var cipher = NoiseCipherState(key: key)
            // Each round restores the frame (the open decrypts it in place),
            // as libsodium's variant does: one copy each, the same for both.
            buffer.withUnsafeMutableBytes { raw in
                sealed.withUnsafeBytes { raw.copyMemory(from: $0) }
                _ = try? cipher.openInPlace(raw)
            }
        }
    }

    private static func sodiumSeal() {
        var buffer = Sodium.randomBytes(frame + NoiseCipherState.tagLength)
        key.withUnsafeBytes { k in
            buffer.withUnsafeMutableBytes { raw in
                for round in 0..<rounds { Sodium.aeadSealInPlace(key: k, nonce: UInt64(round), buffer: raw, count: frame) }
            }
        }
    }

    private static func sodiumOpen() {
        var sealer = NoiseCipherState(key: key)
        let sealed = (try? sealer.encrypt(ad: [], Sodium.randomBytes(frame))) ?? []
        var buffer = sealed
        key.withUnsafeBytes { k in
            buffer.withUnsafeMutableBytes { raw in
                for _ in 0..<rounds {
                    sealed.withUnsafeBytes { raw.copyMemory(from: $0) }
                    _ = Sodium.aeadOpenInPlace(key: k, nonce: 0, buffer: raw)
                }
            }
        }
    }

    private static func openSSLSeal() {
        var buffer = Sodium.randomBytes(frame + NoiseCipherState.tagLength)
        var calls = peerd_crypto_calls()
        guard peerd_crypto_open(&calls) == 1, let context = key.withUnsafeBufferPointer({ peerd_aead_new(&calls, $0.baseAddress!, 1) }) else { return }
        defer { peerd_aead_free(&calls, context) }
        buffer.withUnsafeMutableBufferPointer { raw in
            for round in 0..<rounds { _ = peerd_aead_seal(&calls, context, UInt64(round), raw.baseAddress!, Int32(frame)) }
        }
    }

    private static func hashPath() {
        let block = Sodium.randomBytes(frame)
        let hasher = Blake2b()
        block.withUnsafeBytes { raw in
            for _ in 0..<rounds {
                hasher.update(raw)
                _ = hasher.finish()
            }
        }
    }

    private static func sodiumHash() {
        let block = Sodium.randomBytes(frame)
        var digest = [UInt8](repeating: 0, count: 32)
        for _ in 0..<rounds { _ = crypto_generichash(&digest, 32, block, UInt64(frame), nil, 0) }
    }

    private static func openSSLHash() {
        let block = Sodium.randomBytes(frame)
        var digest = [UInt8](repeating: 0, count: 64)
        var length: UInt32 = 0
        guard let context = EVP_MD_CTX_new(), let md = EVP_MD_fetch(nil, "BLAKE2B-512", nil) else { return }
        defer { EVP_MD_CTX_free(context); EVP_MD_free(md) }
        for _ in 0..<rounds {
            EVP_DigestInit_ex2(context, md, nil)
            EVP_DigestUpdate(context, block, frame)
            EVP_DigestFinal_ex(context, &digest, &length)
        }
    }
}
