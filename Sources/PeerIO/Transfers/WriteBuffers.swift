import Synchronization

/// The buffers received file bytes wait in between the main actor and the
/// writer's thread, reused (issue 44): a chunk's bytes live only while the
/// frame is routed, so each is copied for the writer, and a fresh buffer
/// of a frame's size is mapped anew (the daemon's `M_MMAP_THRESHOLD` is
/// 64 KiB) and every page of it faulted in and cleared.
///
/// Bounded: at most ``kept`` buffers wait for reuse, as many as a lane's
/// receive window holds in frames; the rest are freed. All of them go
/// when a transfer ends (``drain()``), so memory goes back after bulk work.
package enum WriteBuffers {
    /// Buffers kept for reuse: a 4 MiB window's worth of 64 KiB frames.
    static let kept = 64

    private static let free = Mutex<[BulkBuffer]>([])

    /// A buffer holding a copy of `bytes`: a kept one when there is one.
    static func take(copying bytes: UnsafeRawBufferPointer) -> BulkBuffer {
        let buffer = free.withLock { $0.popLast() } ?? BulkBuffer()
        buffer.fill(from: bytes)
        return buffer
    }

    /// `buffer`'s bytes are written: it waits for the next chunk.
    static func giveBack(_ buffer: BulkBuffer) {
        free.withLock { if $0.count < kept { $0.append(buffer) } }
    }

    /// A transfer ended: every kept buffer goes back to the system.
    package static func drain() {
        free.withLock { $0 = [] }
    }

    /// How many buffers wait for reuse (for tests).
    package static var keptCount: Int { free.withLock { $0.count } }
}
