import Glibc

/// Talks to systemd's notify socket (`sd_notify(3)` without libsystemd):
/// `READY=1`, `STATUS=…`, `STOPPING=1` and `WATCHDOG=1`, each one datagram to
/// `$NOTIFY_SOCKET` (a path, or `@name` in the abstract namespace).
/// Without `$NOTIFY_SOCKET` every call does nothing.
package struct SystemdNotifier: Sendable {
    private let socketPath: String?
    /// How often to ping the watchdog (half of `WatchdogSec=`), if it is on.
    package let watchdogInterval: Double?

    /// Reads `NOTIFY_SOCKET`, `WATCHDOG_USEC` and `WATCHDOG_PID`.
    package init() {
        socketPath = Self.environment("NOTIFY_SOCKET").flatMap { $0.isEmpty ? nil : $0 }
        let pidMatches = Self.environment("WATCHDOG_PID").map { Int32($0) == getpid() } ?? true
        if pidMatches, let text = Self.environment("WATCHDOG_USEC"), let usec = Double(text), usec > 0 {
            watchdogInterval = usec / 2_000_000
        } else {
            watchdogInterval = nil
        }
    }

    /// Whether a notify socket was given.
    package var isActive: Bool { socketPath != nil }

    /// Sends `READY=1` with a status line.
    package func ready(status: String) { send("READY=1\nSTATUS=\(status)") }
    /// Sends a status line.
    package func status(_ text: String) { send("STATUS=\(text)") }
    /// Sends `STOPPING=1`.
    package func stopping() { send("STOPPING=1\nSTATUS=stopping") }
    /// Sends `WATCHDOG=1`.
    package func watchdog() { send("WATCHDOG=1") }

    private func send(_ message: String) {
        guard let socketPath else { return }
        let fd = socket(AF_UNIX, Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard fd >= 0 else { return }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        // "@name" is the abstract namespace: a leading NUL byte, no terminator.
        let abstract = path.first == UInt8(ascii: "@")
        if abstract { path[0] = 0 }
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard path.count < capacity else { return }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let length = socklen_t(MemoryLayout<sa_family_t>.size + path.count + (abstract ? 0 : 1))
        let bytes = Array(message.utf8)
        _ = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa in
                bytes.withUnsafeBytes { sendto(fd, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL), sa, length) }
            }
        }
    }

    private static func environment(_ name: String) -> String? {
        getenv(name).map { String(cString: $0) }
    }
}
