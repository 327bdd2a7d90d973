
/// A key `peerctl top` acts on, decoded from the terminal's bytes.
package enum TopKey: Equatable, Sendable {
    /// Arrows, paging, Home and End.
    case up, down, pageUp, pageDown, home, end
    /// Enter, Esc, Backspace, Tab.
    case enter, escape, backspace, tab
    /// Ctrl-L: redraw everything.
    case redraw
    /// Ctrl-C (the terminal is raw, so it arrives as a byte).
    case interrupt
    /// A printable character.
    case character(Character)
}
