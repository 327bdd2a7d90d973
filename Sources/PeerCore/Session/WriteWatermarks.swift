import FoundationEssentials

/// When to stop reading from a peer whose output backs up, when to read
/// again, and when to give up on it: NIO's write watermarks, as a pure type.
///
/// Everything a peer can make us send (pongs, acks, pairing replies) is sent
/// in answer to something we read. Past `high` queued bytes we read nothing
/// more, so it can make us queue nothing more; below `low` we read again;
/// a peer that keeps us above `high` for `stallTimeout` is closed.
public struct WriteWatermarks: Sendable, Equatable {
    /// What the shell must do with the reading side.
    public enum Action: Sendable, Equatable {
        /// Nothing changes.
        case none
        /// Stop reading from the peer.
        case pauseReading
        /// Read again.
        case resumeReading
    }

    /// Reading stops above this many queued bytes.
    public let high: Int
    /// Reading resumes at or below this many.
    public let low: Int
    /// A peer that keeps the queue above `high` this long is closed.
    public let stallTimeout: TimeInterval
    /// Since when reading is paused; nil while reading.
    public private(set) var pausedSince: Date?
    /// Whether reading is paused.
    public var isPaused: Bool { pausedSince != nil }

    /// Watermarks for a session whose application data may fill `sendLimit`
    /// bytes: the marks sit above it (by 256 KiB and 64 KiB), so data alone
    /// never stops reading and two peers sending bulk both ways never
    /// deadlock; only what a peer makes us answer can reach them.
    public init(sendLimit: Int, stallTimeout: TimeInterval = 10) {
        high = sendLimit + 256 * 1024
        low = sendLimit + 64 * 1024
        self.stallTimeout = stallTimeout
    }

    /// The queue now holds `queued` bytes.
    public mutating func queued(_ queued: Int, now: Date) -> Action {
        if pausedSince == nil, queued > high {
            pausedSince = now
            return .pauseReading
        }
        if pausedSince != nil, queued <= low {
            pausedSince = nil
            return .resumeReading
        }
        return .none
    }

    /// Whether the peer has kept us above the high mark for `stallTimeout`.
    public func isStalled(now: Date) -> Bool {
        pausedSince.map { now.timeIntervalSince($0) >= stallTimeout } ?? false
    }
}
