
/// Where `peerctl top` puts its panes for a terminal of a given size
/// (issue 14, part 1). Row 0 is the title line and the last row the key
/// line; the panes share what lies between.
package enum TopLayout: Equatable, Sendable {
    /// Smaller than ``minWidth`` × ``minHeight``: one line saying so.
    case tooSmall(width: Int, height: Int)
    /// Wide: the list on the left in `listWidth` columns, the detail on
    /// the right of a one-column rule.
    case sideBySide(listWidth: Int)
    /// Narrow but tall: the list on top in `listHeight` rows, a rule, the
    /// detail below.
    case stacked(listHeight: Int)
    /// Narrow and short: the list alone (Enter opens the detail).
    case listOnly
    /// Narrow and short, a peer opened: its detail alone (Esc returns).
    case detailOnly

    /// The least width drawn.
    package static let minWidth = 40
    /// The least height drawn.
    package static let minHeight = 10
    /// At or under this many columns the panes cannot sit side by side.
    package static let narrowWidth = 84
    /// Narrow terminals at least this tall stack the panes.
    package static let stackHeight = 24

    /// The layout for `width` × `height`; `detailOpen` is whether the user
    /// opened a peer (matters only when list and detail cannot both show).
    package static func choose(width: Int, height: Int, detailOpen: Bool) -> TopLayout {
        guard width >= minWidth, height >= minHeight else { return .tooSmall(width: width, height: height) }
        if width > narrowWidth {
            // The list gets what its columns need, at most half.
            return .sideBySide(listWidth: min(64, width / 2))
        }
        if height >= stackHeight {
            // Header and key lines, then the list over a rule over the detail.
            let body = height - 2
            return .stacked(listHeight: max(5, (body - 1) * 2 / 5))
        }
        return detailOpen ? .detailOnly : .listOnly
    }

    /// Whether the list and the detail are both on screen.
    package var showsBoth: Bool {
        switch self {
        case .sideBySide, .stacked: return true
        default: return false
        }
    }

    /// The line shown when the terminal is too small.
    package static func tooSmallText(width: Int, height: Int) -> String {
        "too small: \(width)×\(height), need \(minWidth)×\(minHeight)"
    }
}
