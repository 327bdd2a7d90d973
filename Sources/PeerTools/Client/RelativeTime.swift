import FoundationEssentials

/// Short "how long ago" text for tables: `now`, `12s ago`, `3m ago`, `2h ago`, `4d ago`.
package enum RelativeTime {
    /// Describes `date` relative to `now`.
    package static func describe(_ date: Date, now: Date) -> String {
        let seconds = max(0, Int(now.timeIntervalSince(date)))
        switch seconds {
        case 0..<2: return "now"
        case 2..<60: return "\(seconds)s ago"
        case 60..<3600: return "\(seconds / 60)m ago"
        case 3600..<86400: return "\(seconds / 3600)h ago"
        default: return "\(seconds / 86400)d ago"
        }
    }
}
