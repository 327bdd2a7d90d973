import FoundationEssentials

/// When the daemon gives free heap back to the system (issue 13, point 4):
/// peerd keeps freed memory for reuse during bulk work (a trim threshold of
/// 16 MiB), and trims when a transfer, stream or channel ends. Work that
/// ends no such way (a burst of messages on the JSON path) would leave its
/// freed heap behind; this catches it: once a tick, when more than
/// ``freeLimit`` bytes lie free, at most every ``interval``.
///
/// The limit was 2 MiB; the soak (issue 21, point 7) found daemons that
/// kept up to that much after a burst, against 1.5-2.5 MB of private
/// memory in all, so it is now 256 KiB: what a trim cannot give back
/// (free chunks smaller than a page between live ones) stays under it.
public struct HeapTrimPolicy: Sendable, Equatable {
    /// Free heap above which a trim is due.
    public static let freeLimit = 256 << 10
    /// The least time between two trims: during bulk work the freed
    /// buffers are reused, and trimming every tick would only fault them
    /// back in.
    public static let interval: TimeInterval = 10

    private var lastTrim: Date?

    /// A policy that has not trimmed yet.
    public init() {}

    /// The clock ticked with `freeBytes` free in the heap: whether to trim now.
    public mutating func tick(now: Date, freeBytes: Int) -> Bool {
        guard freeBytes > Self.freeLimit else { return false }
        if let lastTrim, now.timeIntervalSince(lastTrim) < Self.interval { return false }
        lastTrim = now
        return true
    }
}
