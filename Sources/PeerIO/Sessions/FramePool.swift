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

    /// A buffer of exactly `count` bytes (its contents are to be overwritten).
    mutating func take(count: Int) -> [UInt8] {
        guard var frame = free.popLast() else {
            // Every byte is written before the frame leaves: no need to zero it.
            return [UInt8](unsafeUninitializedCapacity: count) { _, initialized in initialized = count }
        }
        if frame.count > count {
            frame.removeLast(frame.count - count)
        } else if frame.count < count {
            frame.append(contentsOf: repeatElement(0, count: count - frame.count))
        }
        return frame
    }

    /// Takes back a buffer that was written.
    mutating func give(_ frame: consuming [UInt8]) {
        guard frame.capacity >= Self.minKept, free.count < Self.maxKept else { return }
        free.append(frame)
    }

    /// Lets every buffer go.
    mutating func drain() { free = [] }
}
