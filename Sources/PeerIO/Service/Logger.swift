import Glibc
import PeerCore

/// Writes log lines to stderr with systemd priority prefixes (`<6>…`), which
/// journald turns into priorities. One `write(2)` per line keeps lines whole.
package struct Logger: Sendable {
    /// The most verbose level written.
    package let level: LogLevel

    /// A logger writing lines at `level` or more severe.
    package init(level: LogLevel) { self.level = level }

    /// Writes `message` if `messageLevel` passes the threshold.
    package func log(_ messageLevel: LogLevel, _ message: @autoclosure () -> String) {
        guard messageLevel <= level else { return }
        let line = Array(messageLevel.format(message()).utf8)
        line.withUnsafeBytes { raw in _ = Glibc.write(2, raw.baseAddress, raw.count) }
    }

    /// `log(.error, …)`.
    package func error(_ message: @autoclosure () -> String) { log(.error, message()) }
    /// `log(.warning, …)`.
    package func warning(_ message: @autoclosure () -> String) { log(.warning, message()) }
    /// `log(.notice, …)`.
    package func notice(_ message: @autoclosure () -> String) { log(.notice, message()) }
    /// `log(.info, …)`.
    package func info(_ message: @autoclosure () -> String) { log(.info, message()) }
    /// `log(.debug, …)`.
    package func debug(_ message: @autoclosure () -> String) { log(.debug, message()) }
}
