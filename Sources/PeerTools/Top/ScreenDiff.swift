
/// The bytes that turn the screen from one frame into the next (issue 14:
/// "a single buffered write that changes only the cells that differ").
/// For each row, only the span from its first to its last changed cell is
/// written, after one cursor move; styles are set only where they change.
/// With no previous frame the screen is cleared and drawn whole; after a
/// resize every row is drawn whole, without a clear.
package enum ScreenDiff {
    /// The output for drawing `new` over `old`; "" when nothing changed.
    package static func render(from old: ScreenFrame?, to new: ScreenFrame, color: Bool) -> String {
        var out = ""
        var current: CellStyle? = nil
        // A new size redraws every cell, row by row, with no clear between:
        // the old picture is replaced, never blanked first (no flicker).
        let whole = old == nil || old!.width != new.width || old!.height != new.height
        if old == nil { out += "\u{1B}[0m\u{1B}[H\u{1B}[2J" }
        for row in 0..<new.height {
            let cells = new.rows[row]
            var first = 0, last = new.width - 1
            if !whole, let previous = old?.rows[row] {
                guard let start = cells.indices.first(where: { cells[$0] != previous[$0] }) else { continue }
                first = start
                last = cells.indices.last(where: { cells[$0] != previous[$0] })!
            }
            // Never start inside a wide grapheme, nor stop at its first half.
            while first > 0 && cells[first].text.isEmpty { first -= 1 }
            while last + 1 < new.width && cells[last + 1].text.isEmpty { last += 1 }
            out += "\u{1B}[\(row + 1);\(first + 1)H"
            for x in first...last {
                let cell = cells[x]
                if cell.text.isEmpty { continue }
                if current != cell.style {
                    out += cell.style.sgr(color: color)
                    current = cell.style
                }
                out += cell.text
            }
        }
        if current != nil && current != [] { out += "\u{1B}[0m" }
        return out
    }
}
