import PeerProtocol

/// What the screen should show: `height` rows of `width` cells. Drawing
/// into it never goes past its edges, so a long name can never wrap and
/// shift the rows below.
package struct ScreenFrame: Equatable, Sendable {
    /// Columns.
    package let width: Int
    /// Rows.
    package let height: Int
    /// The cells, row by row.
    package private(set) var rows: [[ScreenCell]]

    /// A blank frame.
    package init(width: Int, height: Int) {
        self.width = max(0, width)
        self.height = max(0, height)
        rows = Array(repeating: Array(repeating: .blank, count: self.width), count: self.height)
    }

    /// Writes `text` at (`row`, `column`) within `limit` columns (to the
    /// right edge by default), cut with "…" when it does not fit; with
    /// `fill`, the rest of the span takes `style` too (a highlighted row).
    /// Returns the column after the text.
    @discardableResult
    package mutating func put(_ text: String, row: Int, column: Int, limit: Int? = nil, style: CellStyle = [], fill: Bool = false) -> Int {
        guard row >= 0, row < height, column >= 0, column < width else { return column }
        let span = min(limit ?? (width - column), width - column)
        guard span > 0 else { return column }
        var x = column
        // Escaped here too: no text reaches the terminal as a control.
        for character in DisplayWidth.truncate(TerminalText.escape(text), to: span) {
            let w = DisplayWidth.of(character)
            guard x + w <= column + span else { break }
            rows[row][x] = ScreenCell(String(character), style: style)
            if w == 2 { rows[row][x + 1] = ScreenCell("", style: style) }
            x += w
        }
        if fill {
            for fillX in x..<(column + span) { rows[row][fillX] = ScreenCell(" ", style: style) }
        }
        return x
    }

    /// One row as plain text (no styles), trailing blanks kept: for tests
    /// and for the plain snapshot.
    package func text(row: Int) -> String { rows[row].map(\.text).joined() }

    /// Every row as plain text, trailing blanks removed.
    package var plainLines: [String] {
        (0..<height).map { row in
            var line = text(row: row)
            while line.hasSuffix(" ") { line.removeLast() }
            return line
        }
    }
}
