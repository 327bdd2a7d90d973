package import FoundationEssentials

/// What systemd should hear, and when (``ServiceHealth`` sends it): the
/// watchdog ping once per interval (half of `WatchdogSec=`), and the
/// status line when it changed. Pure: it takes the time and the status and
/// returns the notices.
package struct HealthReport: Sendable, Equatable {
    /// One datagram's worth of news for systemd.
    package enum Notice: Sendable, Equatable {
        /// `READY=1` with the first status line.
        case ready(String)
        /// `STATUS=…`.
        case status(String)
        /// `WATCHDOG=1`.
        case watchdog
    }

    /// How often to ping the watchdog; nil when it is off.
    package let watchdogInterval: TimeInterval?
    private var lastWatchdog: Date?
    private var lastStatus: String?

    /// A report for a watchdog of `watchdogInterval` (nil: none).
    package init(watchdogInterval: TimeInterval?) {
        self.watchdogInterval = watchdogInterval
    }

    /// The daemon serves.
    package mutating func ready(status: String, now: Date) -> [Notice] {
        lastStatus = status
        return [.ready(status)] + watchdog(now: now)
    }

    /// Once a second, from the main queue: a wedged main actor sends
    /// nothing, so systemd's watchdog fires.
    package mutating func tick(now: Date, status: String) -> [Notice] {
        var notices = watchdog(now: now)
        if status != lastStatus {
            lastStatus = status
            notices.append(.status(status))
        }
        return notices
    }

    private mutating func watchdog(now: Date) -> [Notice] {
        guard let interval = watchdogInterval else { return [] }
        if let last = lastWatchdog, now.timeIntervalSince(last) < interval { return [] }
        lastWatchdog = now
        return [.watchdog]
    }
}
