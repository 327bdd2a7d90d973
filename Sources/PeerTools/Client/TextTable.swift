import PeerProtocol

/// Aligned columns for human output.
package struct TextTable: Sendable {
    /// Column titles.
    package var header: [String]
    /// Rows of cells; a short row is padded with empty cells.
    package var rows: [[String]] = []

    /// A table with these titles.
    package init(header: [String]) { self.header = header }

    /// Renders with two spaces between columns and no trailing spaces.
    /// Every cell is escaped for the terminal (``TerminalText``): cells
    /// carry names and values that peers chose.
    package func render() -> String {
        let all = ([header] + rows).map { $0.map(TerminalText.escape) }
        let columns = all.map(\.count).max() ?? 0
        var widths = Array(repeating: 0, count: columns)
        for row in all {
            for (i, cell) in row.enumerated() { widths[i] = max(widths[i], cell.count) }
        }
        return all.map { row in
            var line = ""
            for i in 0..<columns {
                let cell = i < row.count ? row[i] : ""
                line += i == columns - 1 ? cell : cell + String(repeating: " ", count: widths[i] - cell.count + 2)
            }
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }.joined(separator: "\n") + "\n"
    }
}
