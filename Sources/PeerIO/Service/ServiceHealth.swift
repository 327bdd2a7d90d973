import FoundationEssentials
import PeerCore

/// What systemd hears from peerd: readiness, the one-line status shown by
/// `systemctl status`, the watchdog, and stopping. When is
/// ``HealthReport``'s (pure); this sends it.
///
/// The watchdog is fed from the main queue's own timer (``tick(now:status:)``):
/// a wedged main actor stops the pings, and systemd restarts the daemon.
@MainActor
package final class ServiceHealth {
    private let notifier = SystemdNotifier()
    private var report: HealthReport

    /// A component that talks to `$NOTIFY_SOCKET` (silent without one).
    package init() {
        report = HealthReport(watchdogInterval: notifier.watchdogInterval)
    }

    /// The daemon serves: `READY=1` with its first status line.
    package func ready(status: String, now: Date) {
        send(report.ready(status: status, now: now))
    }

    /// Once a second: the watchdog when due, and the status line when it changed.
    package func tick(now: Date, status: String) {
        send(report.tick(now: now, status: status))
    }

    /// The daemon stops.
    package func stopping() {
        notifier.stopping()
    }

    private func send(_ notices: [HealthReport.Notice]) {
        for notice in notices {
            switch notice {
            case .ready(let status): notifier.ready(status: status)
            case .status(let status): notifier.status(status)
            case .watchdog: notifier.watchdog()
            }
        }
    }
}
