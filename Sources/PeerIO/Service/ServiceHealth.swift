import FoundationEssentials
import PeerCore

/// What systemd hears from peerd: readiness, the one-line status shown by
/// `systemctl status`, the watchdog, and stopping.
///
/// The watchdog is fed from the main queue's own timer (``tick(now:status:)``):
/// a wedged main actor stops the pings, and systemd restarts the daemon.
@MainActor
public final class ServiceHealth {
    private let notifier = SystemdNotifier()
    private var lastWatchdog = Date.distantPast
    private var lastStatus = ""

    /// A component that talks to `$NOTIFY_SOCKET` (silent without one).
    public init() {}

    /// The daemon serves: `READY=1` with its first status line.
    public func ready(status: String, now: Date) {
        lastStatus = status
        notifier.ready(status: status)
        feedWatchdog(now: now)
    }

    /// Once a second: the watchdog when due, and the status line when it changed.
    public func tick(now: Date, status: String) {
        feedWatchdog(now: now)
        guard status != lastStatus else { return }
        lastStatus = status
        notifier.status(status)
    }

    /// The daemon stops.
    public func stopping() {
        notifier.stopping()
    }

    private func feedWatchdog(now: Date) {
        guard let interval = notifier.watchdogInterval, now.timeIntervalSince(lastWatchdog) >= interval else { return }
        lastWatchdog = now
        notifier.watchdog()
    }
}
