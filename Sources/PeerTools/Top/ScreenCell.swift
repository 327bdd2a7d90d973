import PeerCore

/// One column of the screen: a grapheme, or "" where the second half of a
/// wide grapheme to its left lies.
public struct ScreenCell: Equatable, Sendable {
    /// What is drawn.
    public var text: String
    /// How.
    public var style: CellStyle

    /// A cell.
    public init(_ text: String, style: CellStyle = []) {
        self.text = text
        self.style = style
    }

    /// An empty, unstyled cell.
    public static let blank = ScreenCell(" ")
}
