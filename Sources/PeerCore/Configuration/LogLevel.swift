/// syslog priorities, as systemd reads them from a `<N>` line prefix.
package enum LogLevel: Int, Comparable, Sendable, CaseIterable {
    /// LOG_ERR.
    case error = 3
    /// LOG_WARNING.
    case warning = 4
    /// LOG_NOTICE.
    case notice = 5
    /// LOG_INFO.
    case info = 6
    /// LOG_DEBUG.
    case debug = 7

    /// The name used by `--log-level`.
    package var name: String {
        switch self {
        case .error: return "error"
        case .warning: return "warning"
        case .notice: return "notice"
        case .info: return "info"
        case .debug: return "debug"
        }
    }

    /// Parses a `--log-level` value.
    package init?(name: String) {
        guard let level = Self.allCases.first(where: { $0.name == name.lowercased() }) else { return nil }
        self = level
    }

    /// A line for stderr under systemd: `<6>message`, one line per message.
    package func format(_ message: String) -> String {
        "<\(rawValue)>" + String(message.map { $0.isNewline ? " " : $0 }) + "\n"
    }

    /// Lower numbers are more severe.
    package static func < (a: LogLevel, b: LogLevel) -> Bool { a.rawValue < b.rawValue }
}
