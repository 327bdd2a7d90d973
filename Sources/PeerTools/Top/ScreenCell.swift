
/// One column of the screen: a grapheme, or "" where the second half of a
/// wide grapheme to its left lies.
package struct ScreenCell: Equatable, Sendable {
    /// What is drawn.
    package var text: String
    /// How.
    package var style: CellStyle

    /// A cell.
    package init(_ text: String, style: CellStyle = []) {
        self.text = text
        self.style = style
    }

    /// An empty, unstyled cell.
    package static let blank = ScreenCell(" ")
}
