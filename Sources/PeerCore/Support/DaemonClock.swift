package import FoundationEssentials
internal import Glibc

/// The daemon's one source of the time of day. Every component of the
/// shell asks it, never `Date()` itself, so a test can hand the whole
/// daemon one fixed or stepped clock.
package struct DaemonClock: Sendable {
    /// The time now.
    package let now: @Sendable () -> Date

    /// A clock that reads `now`.
    package init(now: @escaping @Sendable () -> Date) {
        self.now = now
    }

    /// The daemon's clock: the wall clock as it was when the daemon first
    /// asked, carried on by `CLOCK_BOOTTIME` (which counts a suspend too).
    /// A step of the system clock afterwards (NTP, `date -s`) moves none of
    /// peerd's deadlines: on the wall clock, a step back would hold every
    /// deadline (a redial, a keepalive, the heap trim) for as long as the
    /// step (issue 21, point 7: the soak steps the clock). The times peerd
    /// reports stay on the timeline it started with until it restarts.
    package static let system: DaemonClock = {
        let anchor = Date()
        let start = bootSeconds()
        return DaemonClock { anchor.addingTimeInterval(bootSeconds() - start) }
    }()

    /// Seconds on `CLOCK_BOOTTIME`: never stepped, and counting a suspend.
    static func bootSeconds() -> TimeInterval {
        var now = timespec()
        clock_gettime(CLOCK_BOOTTIME, &now)
        return TimeInterval(now.tv_sec) + TimeInterval(now.tv_nsec) / 1e9
    }

    /// The system's wall clock as it is now, stepped or not: for a test
    /// that compares, and for nothing that schedules.
    package static let wall = DaemonClock { Date() }
}
