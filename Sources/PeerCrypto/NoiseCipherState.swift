/// Noise CipherState (spec §5.1) with ChaChaPoly: a key and a 64-bit nonce.
/// The 96-bit IETF nonce is 32 zero bits then the counter, little-endian.
///
/// Which library computes a frame is a speed choice (docs/performance.md,
/// "The primitives"), never a wire one: frames of at least
/// ``largeFrame`` bytes go through OpenSSL (``AEADContext``), smaller ones
/// and the handshake's through libsodium, whose per-call cost is lower.
package struct NoiseCipherState: Sendable {
    /// The largest Noise message.
    package static let maxMessageLength = 65535
    /// The AEAD tag length.
    package static let tagLength = 16
    /// Plaintexts of at least this many bytes are sealed and opened by
    /// OpenSSL: measured on this machine, libsodium is faster below about
    /// 1 KiB (less setup per call), OpenSSL above (1.4× at 64 KiB).
    package static let largeFrame = 1024

    private var key: [UInt8]?
    private var nonce: UInt64 = 0
    /// OpenSSL's context for large frames, made on first use (a handshake
    /// state never needs one); nil if OpenSSL could not make one.
    private var context: AEADContext?

    /// A cipher state with no key: encryption is the identity.
    package init() {}

    /// A cipher state with `key`, nonce 0.
    package init(key: [UInt8]) { self.key = key }

    /// Whether a key is set.
    package var hasKey: Bool { key != nil }

    /// Encrypts with associated data `ad`, then advances the nonce.
    package mutating func encrypt(ad: [UInt8], _ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return plaintext }
        // n = 2^64 − 1 is reserved (spec §5.1).
        guard nonce != UInt64.max else { throw .nonceExhausted }
        let out = Sodium.aeadEncrypt(key: key, nonce: nonceBytes, ad: ad, plaintext: plaintext)
        nonce += 1
        return out
    }

    /// Decrypts with associated data `ad`; the nonce advances only on success.
    package mutating func decrypt(ad: [UInt8], _ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return ciphertext }
        guard nonce != UInt64.max else { throw .nonceExhausted }
        guard let plaintext = Sodium.aeadDecrypt(key: key, nonce: nonceBytes, ad: ad, ciphertext: ciphertext) else {
            throw .decryptFailed
        }
        nonce += 1
        return plaintext
    }

    /// Encrypts `count` plaintext bytes at `offset` in `buffer` where they
    /// are, the tag written after them (the buffer has the room); then
    /// advances the nonce. The bulk path: no allocation, no copy.
    package mutating func sealInPlace(_ buffer: inout [UInt8], offset: Int, count: Int) throws(NoiseError) {
        guard let key else { return }
        guard nonce != UInt64.max else { throw .nonceExhausted }
        let nonce = nonce
        let large = count >= Self.largeFrame ? ownContext(sealing: true) : nil
        let sealed = buffer.withUnsafeMutableBytes { raw in
            let frame = UnsafeMutableRawBufferPointer(rebasing: raw[offset..<(offset + count + Self.tagLength)])
            if let large { return large.seal(nonce: nonce, frame, count: count) }
            key.withUnsafeBytes { k in Sodium.aeadSealInPlace(key: k, nonce: nonce, buffer: frame, count: count) }
            return true
        }
        guard sealed else { throw .sealFailed }
        self.nonce += 1
    }

    /// Decrypts a whole ciphertext-and-tag in place (a frame where it was
    /// read); returns the plaintext's length: the first `count - 16` bytes.
    /// The nonce advances only on success; on failure the frame's bytes
    /// are not to be used (the session ends).
    package mutating func openInPlace(_ buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) -> Int {
        guard let key else { return buffer.count }
        guard nonce != UInt64.max else { throw .nonceExhausted }
        let nonce = nonce
        let large = buffer.count - Self.tagLength >= Self.largeFrame ? ownContext(sealing: false) : nil
        let ok = if let large { large.open(nonce: nonce, buffer) } else {
            key.withUnsafeBytes { k in Sodium.aeadOpenInPlace(key: k, nonce: nonce, buffer: buffer) }
        }
        guard ok else { throw .decryptFailed }
        self.nonce += 1
        return buffer.count - Self.tagLength
    }

    /// This state's own OpenSSL context (copy on write: a context shared
    /// with a copy of this state is left to the copy), made on first use.
    private mutating func ownContext(sealing: Bool) -> AEADContext? {
        if !isKnownUniquelyReferenced(&context) || context?.sealing != sealing {
            context = key?.withUnsafeBytes { AEADContext(key: $0, sealing: sealing) }
        }
        return context
    }

    private var nonceBytes: [UInt8] {
        [0, 0, 0, 0] + withUnsafeBytes(of: nonce.littleEndian) { Array($0) }
    }
}
