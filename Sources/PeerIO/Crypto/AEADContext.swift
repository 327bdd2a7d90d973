import CCrypto

/// OpenSSL's ChaCha20-Poly1305 under one key and in one direction: the
/// key schedule is set once, and each frame sets only its nonce, so a
/// frame costs one call from Swift and no allocation. The session's
/// large frames go through it (``NoiseCipherState/largeFrame``): on this
/// CPU it is 1.4× libsodium's speed at 64 KiB (docs/performance.md,
/// "The primitives"). The bytes are RFC 8439's either way.
///
/// `@unchecked Sendable` is safe here: a context is used only through the
/// ``NoiseCipherState`` that holds it, in a `mutating` call (exclusive
/// access), and a state whose context is shared with a copy makes its own
/// before it uses one (copy on write), so no two threads ever call into
/// one context at once.
final class AEADContext: @unchecked Sendable {
    private let context: OpaquePointer
    /// True for sealing, false for opening.
    let sealing: Bool

    /// A context for `key` (32 bytes); nil when OpenSSL cannot make one
    /// (the caller then uses libsodium for every frame).
    init?(key: UnsafeRawBufferPointer, sealing: Bool) {
        guard key.count == 32, let made = peerd_aead_new(key.baseAddress!.assumingMemoryBound(to: UInt8.self), sealing ? 1 : 0) else {
            return nil
        }
        context = made
        self.sealing = sealing
    }

    /// OpenSSL wipes the key schedule as it frees the context.
    deinit { peerd_aead_free(context) }

    /// Seals `count` bytes at the start of `buffer` where they are and
    /// writes the tag after them (`buffer` holds `count + 16` bytes).
    func seal(nonce: UInt64, _ buffer: UnsafeMutableRawBufferPointer, count: Int) -> Bool {
        precondition(sealing && buffer.count >= count + NoiseCipherState.tagLength, "no room for the tag")
        return peerd_aead_seal(context, nonce, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1
    }

    /// Checks the tag in the last 16 bytes of `buffer` and opens the bytes
    /// before it where they are. On false the bytes are garbage: the
    /// caller drops the frame, and with it the session.
    func open(nonce: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(!sealing, "a sealing context cannot open")
        guard buffer.count >= NoiseCipherState.tagLength else { return false }
        return peerd_aead_open(context, nonce, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1
    }
}
