package import FoundationEssentials

/// When to stop reading from a peer whose output backs up, when to read
/// again, and when to give up on it: NIO's write watermarks, as a pure type.
///
/// Everything a peer can make us send (pongs, acks, pairing replies) is sent
/// in answer to something we read. Past `high` queued bytes we read nothing
/// more, so it can make us queue nothing more; below `low` we read again;
/// a peer that keeps us above `high` for `stallTimeout` is closed.
///
/// Answers are bounded on their own (issue 21, point 4): a peer that sends
/// pings and reads nothing makes only small pongs, which took long to reach
/// `high` while each cost more than its bytes. Past ``answerHigh`` bytes of
/// unsent answers reading stops too, and a peer that keeps us there for
/// ``answerStallTimeout`` is closed: keepalive asks for one pong per 5 s, so
/// hundreds owed are a flood, not a slow reader.
package struct WriteWatermarks: Sendable, Equatable {
    /// What the shell must do with the reading side.
    package enum Action: Sendable, Equatable {
        /// Nothing changes.
        case none
        /// Stop reading from the peer.
        case pauseReading
        /// Read again.
        case resumeReading
    }

    /// Reading stops above this many queued bytes.
    package let high: Int
    /// Reading resumes at or below this many.
    package let low: Int
    /// A peer that keeps the queue above `high` this long is closed.
    package let stallTimeout: TimeInterval
    /// Unsent answer bytes past which reading stops.
    package static let answerHigh = 16 * 1024
    /// Reading resumes once unsent answers are at or below this (and the
    /// bytes at or below `low`).
    package static let answerLow = 4 * 1024
    /// A peer that keeps more than ``answerHigh`` answers waiting this
    /// long is closed.
    package let answerStallTimeout: TimeInterval
    /// Since when reading is paused; nil while reading.
    package private(set) var pausedSince: Date?
    /// Whether unsent answers passed ``answerHigh`` during this pause.
    package private(set) var pausedForAnswers = false
    /// The stall limit that applies to the pause now.
    package var activeStallTimeout: TimeInterval { pausedForAnswers ? answerStallTimeout : stallTimeout }
    /// Whether reading is paused.
    package var isPaused: Bool { pausedSince != nil }

    /// Watermarks for a session whose application data may fill `sendLimit`
    /// bytes: the marks sit above it (by 256 KiB and 64 KiB), so data alone
    /// never stops reading and two peers sending bulk both ways never
    /// deadlock; only what a peer makes us answer can reach them.
    package init(sendLimit: Int, stallTimeout: TimeInterval = 10, answerStallTimeout: TimeInterval = 5) {
        high = sendLimit + 256 * 1024
        low = sendLimit + 64 * 1024
        self.stallTimeout = stallTimeout
        self.answerStallTimeout = answerStallTimeout
    }

    /// The queue now costs `queued` bytes of memory (what its buffers
    /// take, not their payload), `answers` of them unsent answers.
    package mutating func queued(_ queued: Int, answers: Int = 0, now: Date) -> Action {
        let answersOver = answers > Self.answerHigh
        if pausedSince == nil, queued > high || answersOver {
            pausedSince = now
            pausedForAnswers = answersOver
            return .pauseReading
        }
        guard pausedSince != nil else { return .none }
        if answersOver { pausedForAnswers = true }
        if queued <= low, answers <= Self.answerLow {
            pausedSince = nil
            pausedForAnswers = false
            return .resumeReading
        }
        return .none
    }

    /// Whether the peer has kept us paused past the limit that applies
    /// (``activeStallTimeout``).
    package func isStalled(now: Date) -> Bool {
        pausedSince.map { now.timeIntervalSince($0) >= activeStallTimeout } ?? false
    }
}
