
/// peerbench's table as text (issue 13): one row per variant, grouped by
/// comparison, each with its median, min and max and unit, and the ratio of
/// the first variant (peerd's) to each other one on the median.
package enum BenchTable {
    /// The table for `rows`, in their order, columns aligned.
    package static func render(_ rows: [BenchRow]) -> String {
        var lines: [[String]] = [["figure", "variant", "median", "min", "max", "unit", "runs", "peerd ÷ this"]]
        var first: [String: Double] = [:]
        for row in rows {
            let summary = row.summary
            var ratio = ""
            if let median = summary?.median {
                if let base = first[row.comparison] {
                    ratio = median == 0 ? "" : format(base / median) + "×"
                } else {
                    first[row.comparison] = median
                }
            }
            lines.append([row.comparison, row.variant, summary.map { format($0.median) } ?? "failed", summary.map { format($0.min) } ?? "",
                          summary.map { format($0.max) } ?? "", row.unit, summary.map { String($0.runs) } ?? "0", ratio])
        }
        let widths = (0..<lines[0].count).map { column in lines.map { $0[column].count }.max() ?? 0 }
        var out = ""
        for (index, line) in lines.enumerated() {
            let cells = line.enumerated().map { column, cell in
                column >= 2 && column != 5 ? String(repeating: " ", count: widths[column] - cell.count) + cell
                                           : cell + String(repeating: " ", count: widths[column] - cell.count)
            }
            out += cells.joined(separator: "  ").trimmingTrailingSpaces() + "\n"
            if index == 0 { out += widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ") + "\n" }
        }
        let notes = rows.compactMap { row in row.note.map { "\(row.comparison), \(row.variant): \($0)" } }
        if !notes.isEmpty { out += "\n" + notes.map { "- " + $0 }.joined(separator: "\n") + "\n" }
        return out
    }

    /// A value with three significant digits or so: 0.123, 12.3, 1234.
    package static func format(_ value: Double) -> String {
        let magnitude = abs(value)
        let decimals = magnitude >= 100 ? 0 : (magnitude >= 10 ? 1 : (magnitude >= 1 ? 2 : 3))
        var scaled = (value * pow10(decimals)).rounded() / pow10(decimals)
        if scaled == 0 { scaled = 0 }   // no "-0"
        let whole = Int(scaled.rounded(.towardZero))
        guard decimals > 0 else { return String(Int(scaled)) }
        let fraction = Int((abs(scaled - Double(whole)) * pow10(decimals)).rounded())
        let digits = String(fraction)
        let sign = scaled < 0 && whole == 0 ? "-" : ""
        return sign + String(whole) + "." + String(repeating: "0", count: decimals - digits.count) + digits
    }

    private static func pow10(_ n: Int) -> Double { (0..<n).reduce(1) { value, _ in value * 10 } }
}

private extension String {
    func trimmingTrailingSpaces() -> String {
        var copy = self
        while copy.last == " " { copy.removeLast() }
        return copy
    }
}
