internal import CCrypto
internal import CSodium

/// SHA-256, fed piece by piece: the block and file hashes of a transfer on
/// a session where both sides announce `sha256-blocks` (docs/protocol.md
/// §8). libcrypto's code, which uses the CPU's SHA instructions (1.5-1.8
/// GB/s a core on the lab, against 0.85-1.0 for BLAKE2b); libsodium's
/// where libcrypto cannot be opened (the same bytes, more slowly).
package final class Sha256: BlockDigest {
    /// The digest length.
    package static let length = 32

    /// libcrypto's digest calls, found once, at the first SHA-256 (the
    /// shim's dlopen); nil when it cannot be opened. `nonisolated(unsafe)`
    /// is safe here: it is written once, by Swift's thread-safe lazy
    /// initialization of a static, and only read after.
    nonisolated(unsafe) static let calls: UnsafePointer<peerd_digest_calls>? = {
        let calls = UnsafeMutablePointer<peerd_digest_calls>.allocate(capacity: 1)
        guard peerd_digest_open(calls) == 1 else {
            calls.deallocate()
            return nil
        }
        return UnsafePointer(calls)
    }()

    /// Whether this CPU has SHA-256 instructions: only then does this
    /// daemon announce `sha256-blocks` (without them SHA-256 is slower
    /// than BLAKE2b). It asks the CPU, not libcrypto: opening libcrypto
    /// costs about 400 KB of private memory, which a daemon that moves no
    /// file should not pay (``calls`` opens it at the first hash).
    package static let accelerated = peerd_cpu_has_sha256() == 1

    private let openSSL: OpaquePointer?
    private let sodium: UnsafeMutableRawPointer?

    /// A fresh hash.
    package init() {
        if let calls = Self.calls, let context = calls.pointee.ctx_new() {
            openSSL = context
            sodium = nil
        } else {
            openSSL = nil
            sodium = UnsafeMutableRawPointer.allocate(byteCount: crypto_hash_sha256_statebytes(), alignment: 64)
        }
        reset()
    }

    deinit {
        if let openSSL, let calls = Self.calls { calls.pointee.ctx_free(openSSL) }
        sodium?.deallocate()
    }

    /// Starts over.
    private func reset() {
        if let openSSL, let calls = Self.calls {
            _ = calls.pointee.`init`(openSSL, calls.pointee.sha256(), nil)
        } else if let sodium {
            crypto_hash_sha256_init(sodium.assumingMemoryBound(to: crypto_hash_sha256_state.self))
        }
    }

    /// Adds bytes.
    package func update(_ bytes: UnsafeRawBufferPointer) {
        guard let base = bytes.baseAddress, bytes.count > 0 else { return }
        if let openSSL, let calls = Self.calls {
            _ = calls.pointee.update(openSSL, base, bytes.count)
        } else if let sodium {
            crypto_hash_sha256_update(sodium.assumingMemoryBound(to: crypto_hash_sha256_state.self), base.assumingMemoryBound(to: UInt8.self), UInt64(bytes.count))
        }
    }

    /// The digest of everything added since the last one; then starts over.
    package func finish() -> [UInt8] {
        var out = [UInt8](repeating: 0, count: Self.length)
        out.withUnsafeMutableBufferPointer { buffer in
            if let openSSL, let calls = Self.calls {
                var length: UInt32 = 0
                _ = calls.pointee.final(openSSL, buffer.baseAddress!, &length)
            } else if let sodium {
                _ = crypto_hash_sha256_final(sodium.assumingMemoryBound(to: crypto_hash_sha256_state.self), buffer.baseAddress!)
            }
        }
        reset()
        return out
    }
}
