package import FoundationEssentials

/// The receiving end of one stream's credit (issue 12, point 6, after
/// yamux's window updates): the sender may have at most ``window`` bytes
/// in flight that this side's reader has not consumed, so a slow reader
/// holds back only its own stream.
///
/// Credit is given back in updates of at least half the window, not byte
/// by byte. The window starts at 256 KiB and doubles, up to ``limit``,
/// each time the reader consumes a whole window within ``growWithin``: a
/// fast reader on a long path gets a larger window; a slow one keeps it small.
package struct ReceiveWindow: Sendable, Equatable {
    /// The first window.
    package static let initial = 256 << 10
    /// The largest window the protocol allows (docs/protocol.md §8): credit
    /// past it is a protocol error. A wire value: earlier releases grow
    /// their windows this far, so a sender accepts it from any peer.
    package static let maximum = 4 << 20
    /// How far this receiver grows its own windows (issue 25, point 3):
    /// every byte in flight is a byte a message from the same peer waits
    /// behind, at the receiver's pace. 512 KiB is about a millisecond of a
    /// transfer here, and still 50 MiB/s over a 10 ms path (Wi-Fi's worst);
    /// 1 MiB measured 3.7 ms p99 round trips during a pipe, 512 KiB 1.9 ms,
    /// at the same throughput. 0.2.0 grew to ``maximum``
    /// (docs/performance.md, "No waiting behind bulk").
    package static let grownLimit = 512 << 10
    /// How far a file transfer's window grows (issue 25, point 3): it stays
    /// at ``initial``. A file's receiver hashes, writes and syncs at its
    /// disk's pace, and what the window lets in beyond that waits in the
    /// sockets, where a message from the same peer waits behind it: 256 KiB
    /// measured about 0.4 ms off the p99 round trip beside a send-file for
    /// some 5% of its speed; a pipe's reader keeps up, and its window grows
    /// (docs/performance.md, "What the round trip waits behind").
    package static let fileLimit = initial
    /// How far a window grows when its bytes come on a bulk lane (issue
    /// 44; docs/protocol.md §12): nothing but bulk waits behind them
    /// there, so the window is sized for throughput alone, up to what the
    /// protocol allows.
    package static let laneLimit = maximum
    /// A window consumed faster than this grows.
    package static let growWithin: TimeInterval = 0.2

    /// How far this window grows.
    package private(set) var limit: Int
    /// Bytes the sender may have in flight now.
    package private(set) var window = ReceiveWindow.initial
    /// Bytes received and not yet consumed by the reader.
    package private(set) var buffered = 0
    /// Bytes consumed and not yet credited back.
    private var consumed = 0
    /// Credit the sender holds: what it may still send.
    private var senderCredit = ReceiveWindow.initial
    /// When the first bytes since the last credit update arrived.
    private var windowStarted: Date?

    /// A fresh window, growing to `limit` (at least ``initial``, at most ``maximum``).
    package init(limit: Int = ReceiveWindow.grownLimit) {
        self.limit = min(max(limit, Self.initial), Self.maximum)
    }

    /// Lets the window grow as far as `limit` (never past ``maximum``, and
    /// never less far than it may already): for bytes that came on a lane.
    package mutating func widen(to limit: Int) {
        self.limit = min(max(self.limit, limit), Self.maximum)
    }

    /// `count` bytes arrived at `now`. Returns false when they exceed the
    /// credit given (a protocol error: the stream is reset).
    package mutating func received(_ count: Int, now: Date) -> Bool {
        guard count <= senderCredit else { return false }
        if windowStarted == nil { windowStarted = now }
        senderCredit -= count
        buffered += count
        return true
    }

    /// The reader consumed `count` bytes. Returns the credit to send now
    /// (nil while it is under half the window).
    package mutating func consumed(_ count: Int, now: Date) -> Int? {
        let taken = min(count, buffered)
        buffered -= taken
        consumed += taken
        guard consumed >= window / 2 else { return nil }
        if let started = windowStarted, now.timeIntervalSince(started) < Self.growWithin, window < limit {
            // Half a window gone in a moment: the path is faster than the window allows.
            window = min(window * 2, limit)
        }
        // The sender may again have a whole window in flight.
        let credit = window - senderCredit - buffered
        senderCredit += credit
        consumed = 0
        windowStarted = nil
        return credit
    }
}
