/// Noise CipherState (spec §5.1) with ChaChaPoly: a key and a 64-bit nonce.
/// The 96-bit IETF nonce is 32 zero bits then the counter, little-endian.
public struct NoiseCipherState: Sendable {
    /// The largest Noise message.
    public static let maxMessageLength = 65535
    /// The AEAD tag length.
    public static let tagLength = 16

    private var key: [UInt8]?
    private var nonce: UInt64 = 0

    /// A cipher state with no key: encryption is the identity.
    public init() {}

    /// A cipher state with `key`, nonce 0.
    public init(key: [UInt8]) { self.key = key }

    /// Whether a key is set.
    public var hasKey: Bool { key != nil }

    /// Encrypts with associated data `ad`, then advances the nonce.
    public mutating func encrypt(ad: [UInt8], _ plaintext: [UInt8]) throws(NoiseError) -> [UInt8] {
        guard let key else { return plaintext }
        // n = 2^64 − 1 is reserved (spec §5.1).
        guard nonce != UInt64.max else { throw .nonceExhausted }
        let out = Sodium.aeadEncrypt(key: key, nonce: nonceBytes, ad: ad, plaintext: plaintext)
        nonce += 1
        return out
    }

    /// Decrypts with associated data `ad`; the nonce advances only on success.
    public mutating func decrypt(ad: [UInt8], _ ciphertext: [UInt8]) throws(NoiseError) -> [UInt8] {
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
    public mutating func sealInPlace(_ buffer: inout [UInt8], offset: Int, count: Int) throws(NoiseError) {
        guard let key else { return }
        guard nonce != UInt64.max else { throw .nonceExhausted }
        let nonce = nonce
        buffer.withUnsafeMutableBytes { raw in
            key.withUnsafeBytes { k in
                Sodium.aeadSealInPlace(key: k, nonce: nonce, buffer: UnsafeMutableRawBufferPointer(rebasing: raw[offset..<(offset + count + Self.tagLength)]),
                                       count: count)
            }
        }
        self.nonce += 1
    }

    /// Decrypts a whole ciphertext-and-tag in place (a frame where it was
    /// read); returns the plaintext's length: the first `count - 16` bytes.
    /// The nonce advances only on success.
    public mutating func openInPlace(_ buffer: UnsafeMutableRawBufferPointer) throws(NoiseError) -> Int {
        guard let key else { return buffer.count }
        guard nonce != UInt64.max else { throw .nonceExhausted }
        let nonce = nonce
        let ok = key.withUnsafeBytes { k in Sodium.aeadOpenInPlace(key: k, nonce: nonce, buffer: buffer) }
        guard ok else { throw .decryptFailed }
        self.nonce += 1
        return buffer.count - Self.tagLength
    }

    private var nonceBytes: [UInt8] {
        [0, 0, 0, 0] + withUnsafeBytes(of: nonce.littleEndian) { Array($0) }
    }
}
