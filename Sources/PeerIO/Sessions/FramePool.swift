/// Buffers for bulk frames, reused (issue 12, point 8): a frame written
/// to the socket comes back here whole and the next bulk frame is built in
/// it, so a transfer allocates nothing per frame. Bounded: at most
/// ``maxKept`` buffers, about one send queue's worth; drained when idle.
struct FramePool {
    /// The most buffers kept.
    static let maxKept = 24
    /// A buffer smaller than this is not worth keeping (a small frame).
    static let minKept = 32 * 1024
    private var free: [[UInt8]] = []

    /// A buffer of exactly `count` bytes (its contents are to be
    /// overwritten): a kept one of that size (almost every bulk frame is
    /// full), else a new one. Sizes are never adjusted: that would cost a
    /// pass over the bytes.
    mutating func take(count: Int) -> [UInt8] {
        if let last = free.last, last.count == count { return free.removeLast() }
        // Every byte is written before the frame leaves: no need to zero it.
        return [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
    }

    /// Takes back a buffer that was written.
    mutating func give(_ frame: consuming [UInt8]) {
        guard frame.capacity >= Self.minKept, free.count < Self.maxKept else { return }
        free.append(frame)
    }

    /// Lets every buffer go.
    mutating func drain() { free = [] }
}
