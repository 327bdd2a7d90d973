import PeerProtocol

/// The one-line progress bar `peerctl send-file` draws on a terminal:
///
///     [##########..........]  50%  512.0 MiB / 1.0 GiB  3/7 files  410.2 MiB/s  ETA 0:01
///
/// Pure, so its words are tested; peerctl decides whether to draw it (a
/// terminal, and no `NO_COLOR`).
package enum ProgressLine {
    /// The bar's width in characters.
    package static let barWidth = 20

    /// The line for `info`.
    package static func render(_ info: TransferInfo) -> String {
        let total = max(info.acceptedBytes, 0)
        let fraction = total > 0 ? min(1, Double(info.bytes) / Double(total)) : (info.state == .completed ? 1 : 0)
        let filled = Int(fraction * Double(barWidth))
        let bar = String(repeating: "#", count: filled) + String(repeating: ".", count: barWidth - filled)
        let percent = String(Int(fraction * 100))
        var line = "[\(bar)] \(String(repeating: " ", count: max(0, 3 - percent.count)))\(percent)%  \(bytes(info.bytes)) / \(bytes(total))"
        line += "  \(info.filesDone)/\(info.acceptedFiles) files"
        if info.rate > 0 { line += "  \(bytes(Int64(info.rate)))/s" }
        if let eta = info.eta, info.rate > 0 { line += "  ETA \(duration(eta))" }
        if info.state == .interrupted { line += "  (interrupted: waiting for the peer)" }
        return line
    }

    /// `512 B`, `1.5 KiB`, `12.0 MiB`, `1.0 GiB`.
    package static func bytes(_ count: Int64) -> String {
        let units = ["B", "KiB", "MiB", "GiB", "TiB"]
        var value = Double(count)
        var unit = 0
        while value >= 1024 && unit < units.count - 1 {
            value /= 1024
            unit += 1
        }
        if unit == 0 { return "\(count) B" }
        let tenths = Int((value * 10).rounded())
        return "\(tenths / 10).\(tenths % 10) \(units[unit])"
    }

    /// `0:07`, `12:34`, `1:02:03`.
    package static func duration(_ seconds: Double) -> String {
        let total = Int(seconds.rounded())
        let (hours, minutes, secs) = (total / 3600, total / 60 % 60, total % 60)
        let two = { (n: Int) in n < 10 ? "0\(n)" : "\(n)" }
        return hours > 0 ? "\(hours):\(two(minutes)):\(two(secs))" : "\(minutes):\(two(secs))"
    }
}
