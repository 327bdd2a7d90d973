package import FoundationEssentials

/// When the daemon gives free heap back to the system (issue 13, point 4):
/// peerd keeps freed memory for reuse during bulk work (a trim threshold of
/// 16 MiB), and trims when a transfer, stream or channel ends. Work that
/// ends no such way (a burst of messages on the JSON path) would leave its
/// freed heap behind; this catches it: once a tick, when more than
/// ``freeLimit`` bytes lie free, at most every ``interval``.
///
/// The limit was 2 MiB, then 256 KiB (the soak of issue 21 found daemons
/// keeping up to 2 MiB after a burst). Under 256 KiB a trim still gives
/// back the whole free pages between live chunks: 40 to 60 KB of an idle
/// daemon's 2 MB (issue 25), so the limit became 64 KiB, then 16 KiB: an
/// idle daemon holds about 50 KiB free, whose whole pages were kept
/// (idle private memory 1.88 to 1.90 MB against 1.90 to 1.95, in
/// turns). glibc's free
/// figure does not change when it trims (the chunks stay free, only their
/// pages go), so an idle daemon is trimmed again every interval; a trim of
/// a small heap costs microseconds inside the tick and no wake-up.
package struct HeapTrimPolicy: Sendable, Equatable {
    /// Free heap above which a trim is due.
    package static let freeLimit = 16 << 10
    /// The least time between two trims: during bulk work the freed
    /// buffers are reused, and trimming every tick would only fault them
    /// back in.
    package static let interval: TimeInterval = 10

    private var lastTrim: Date?

    /// A policy that has not trimmed yet.
    package init() {}

    /// The clock ticked with `freeBytes` free in the heap: whether to trim now.
    package mutating func tick(now: Date, freeBytes: Int) -> Bool {
        guard freeBytes > Self.freeLimit else { return false }
        if let lastTrim, now.timeIntervalSince(lastTrim) < Self.interval { return false }
        lastTrim = now
        return true
    }
}
