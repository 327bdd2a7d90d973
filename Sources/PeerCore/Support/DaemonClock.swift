import FoundationEssentials

/// The daemon's one source of the time of day. Every component of the
/// shell asks it, never `Date()` itself, so a test can hand the whole
/// daemon one fixed or stepped clock.
public struct DaemonClock: Sendable {
    /// The time now.
    public let now: @Sendable () -> Date

    /// A clock that reads `now`.
    public init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// The system's wall clock.
    public static let system = DaemonClock { Date() }
}
