internal import CCrypto

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
    /// libcrypto's calls, found once, at the first large frame (the
    /// shim's dlopen); nil when it cannot be opened. The one copy in the
    /// process: the C header holds no state (its comment says why).
    /// `nonisolated(unsafe)` is safe here: it is written once, by Swift's
    /// thread-safe lazy initialization of a static, and only read after.
    nonisolated(unsafe) static let calls: UnsafePointer<peerd_crypto_calls>? = {
        let calls = UnsafeMutablePointer<peerd_crypto_calls>.allocate(capacity: 1)
        guard peerd_crypto_open(calls) == 1 else {
            calls.deallocate()
            return nil
        }
        return UnsafePointer(calls)
    }()

    private let calls: UnsafePointer<peerd_crypto_calls>
    private let context: OpaquePointer
    /// True for sealing, false for opening.
    let sealing: Bool

    /// A context for `key` (32 bytes); nil when OpenSSL cannot make one
    /// (the caller then uses libsodium for every frame).
    init?(key: UnsafeRawBufferPointer, sealing: Bool) {
        guard key.count == 32, let calls = Self.calls,
              let made = peerd_aead_new(calls, key.baseAddress!.assumingMemoryBound(to: UInt8.self), sealing ? 1 : 0) else {
            return nil
        }
        self.calls = calls
        context = made
        self.sealing = sealing
    }

    /// OpenSSL wipes the key schedule as it frees the context.
    deinit { peerd_aead_free(calls, context) }

    /// Seals `count` bytes at the start of `buffer` where they are and
    /// writes the tag after them (`buffer` holds `count + 16` bytes).
    func seal(nonce: UInt64, _ buffer: UnsafeMutableRawBufferPointer, count: Int) -> Bool {
        precondition(sealing && buffer.count >= count + NoiseCipherState.tagLength, "no room for the tag")
        return peerd_aead_seal(calls, context, nonce, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(count)) == 1
    }

    /// Checks the tag in the last 16 bytes of `buffer` and opens the bytes
    /// before it where they are. On false the bytes are garbage: the
    /// caller drops the frame, and with it the session.
    func open(nonce: UInt64, _ buffer: UnsafeMutableRawBufferPointer) -> Bool {
        precondition(!sealing, "a sealing context cannot open")
        guard buffer.count >= NoiseCipherState.tagLength else { return false }
        return peerd_aead_open(calls, context, nonce, buffer.baseAddress!.assumingMemoryBound(to: UInt8.self), Int32(buffer.count)) == 1
    }
}
