import PeerProtocol

/// How `peerctl top` answers keys: moving the selection, filtering,
/// sorting, opening a peer on a narrow terminal, and the commands that act
/// on the selected peer. Pure: the shell performs the ``TopCommand``s.
package struct TopInteraction: Sendable {
    /// What the keys do right now.
    package enum Mode: Equatable, Sendable {
        /// Keys act on the list.
        case normal
        /// Keys type the filter (Enter keeps it, Esc clears it).
        case filtering
        /// The key help is shown (any key closes it).
        case help
    }

    /// The current mode.
    package private(set) var mode: Mode = .normal
    /// Whether the selected peer's detail is opened (narrow, short terminals).
    package private(set) var detailOpen = false
    /// A one-line note for the key line (what a key did, or why not).
    package var note: String?

    /// Rows a page key moves.
    package var pageRows = 10

    /// Nothing typed yet.
    package init() {}

    /// Handles `key` against `model`; returns what the shell must do.
    package mutating func handle(_ key: TopKey, model: inout TopModel) -> [TopCommand] {
        if key == .interrupt { return [.quit] }
        if key == .redraw { return [.redrawAll] }
        switch mode {
        case .help:
            mode = .normal
            return []
        case .filtering:
            switch key {
            case .enter: mode = .normal
            case .escape:
                model.filter = ""
                mode = .normal
            case .backspace: if !model.filter.isEmpty { model.filter.removeLast() }
            case .character(let character): if model.filter.count < 64 { model.filter.append(character) }
            default: break
            }
            return []
        case .normal:
            break
        }
        note = nil
        switch key {
        case .up, .character("k"): model.move(-1)
        case .down, .character("j"): model.move(1)
        case .pageUp: model.move(-pageRows)
        case .pageDown: model.move(pageRows)
        case .home, .character("g"): model.move(-Int(Int32.max))
        case .end, .character("G"): model.move(Int(Int32.max))
        case .enter: if model.selectedRow != nil { detailOpen = true }
        case .escape: detailOpen = false
        case .character("/"): mode = .filtering
        case .character("s"):
            model.sort = model.sort.next
            note = "sorted by \(model.sort.rawValue)"
        case .character("?"): mode = .help
        case .character("q"): return [.quit]
        case .character("i"), .character("p"), .character("x"), .character("a"), .character("d"):
            guard let peer = model.selectedRow else {
                note = "no peer selected"
                return []
            }
            return command(for: key, on: peer, model: model)
        default:
            break
        }
        return []
    }

    /// The command a peer key asks for, or a note saying why there is none.
    private mutating func command(for key: TopKey, on peer: PeerSnapshot, model: TopModel) -> [TopCommand] {
        let name = TerminalText.escape(peer.name)
        switch key {
        case .character("i"): return [.invite(peer.id)]
        case .character("p"): return [.pair(peer.id)]
        case .character("x"):
            guard peer.state != .notConnected else {
                note = "'\(name)' has no session"
                return []
            }
            return [.disconnect(peer.id)]
        default:
            guard let invitation = model.invitation(from: peer.id) else {
                note = "no invitation from '\(name)' waits here"
                return []
            }
            return [key == .character("a") ? .accept(invitation: invitation.id) : .decline(invitation: invitation.id)]
        }
    }
}
