internal import CSodium

/// BLAKE2b-256, libsodium's `crypto_generichash`, fed piece by piece: the
/// hash of every block of a transfer (docs/protocol.md §8). The state is
/// one aligned allocation, reused for every block (``reset()``).
package final class Blake2b: BlockDigest {
    /// The digest length.
    package static let length = 32
    private let state: UnsafeMutableRawPointer

    /// A fresh hash.
    package init() {
        state = UnsafeMutableRawPointer.allocate(byteCount: crypto_generichash_statebytes(), alignment: 64)
        reset()
    }

    deinit { state.deallocate() }

    /// libsodium's state type has an alignment Swift does not import, so the calls take it opaque.
    private var typed: OpaquePointer { OpaquePointer(state) }

    /// Starts over.
    package func reset() {
        crypto_generichash_init(typed, nil, 0, Self.length)
    }

    /// Adds bytes.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        crypto_generichash_update(typed, base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
    }

    /// The digest of everything added since the last reset; then starts over.
    package func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.length)
        out.withUnsafeMutableBufferPointer { buffer in _ = crypto_generichash_final(typed, buffer.baseAddress!, Self.length) }
        reset()
        return out
    }

    /// The digest of `bytes`.
    package static func hash(_ bytes: [UInt8]) -> [UInt8] {
        let hasher = Blake2b()
        hasher.update(bytes)
        return hasher.finish()
    }
}
