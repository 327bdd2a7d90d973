
/// How a screen cell is drawn: attributes and at most one colour. Never on
/// the wire; with colour off (`NO_COLOR`, `TERM=dumb`) only the
/// attributes that are not colour are drawn.
package struct CellStyle: OptionSet, Sendable, Hashable {
    /// The bits.
    package let rawValue: UInt8
    /// The style in `rawValue`.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// Bold (headings, the selected peer's name).
    package static let bold = CellStyle(rawValue: 1 << 0)
    /// Reverse video (the selected row; the status lines).
    package static let reverse = CellStyle(rawValue: 1 << 1)
    /// Dim (lost peers, hints).
    package static let dim = CellStyle(rawValue: 1 << 2)
    /// Green (connected).
    package static let green = CellStyle(rawValue: 1 << 3)
    /// Yellow (connecting, waiting for a decision).
    package static let yellow = CellStyle(rawValue: 1 << 4)
    /// Red (failures).
    package static let red = CellStyle(rawValue: 1 << 5)

    /// The SGR sequence that sets exactly this style (after a reset).
    package func sgr(color: Bool) -> String {
        var codes = ["0"]
        if contains(.bold) { codes.append("1") }
        if contains(.dim) { codes.append("2") }
        if contains(.reverse) { codes.append("7") }
        if color {
            if contains(.green) { codes.append("32") } else if contains(.yellow) { codes.append("33") } else if contains(.red) { codes.append("31") }
        }
        return "\u{1B}[" + codes.joined(separator: ";") + "m"
    }
}
