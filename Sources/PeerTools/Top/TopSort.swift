
/// The orders `peerctl top` lists peers in; `s` steps through them.
package enum TopSort: String, CaseIterable, Sendable {
    /// As the daemon first saw them: rows never move (the default).
    case firstSeen = "first seen"
    /// By name.
    case name = "name"
    /// Connected first, then connecting, then the rest; by name within.
    case state = "state"
    /// Most recently seen first.
    case lastSeen = "last seen"

    /// The next order after this one.
    package var next: TopSort {
        let all = Self.allCases
        return all[(all.firstIndex(of: self)! + 1) % all.count]
    }
}
