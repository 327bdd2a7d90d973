import FoundationEssentials
import PeerProtocol

/// Draws `peerctl top` into a ``ScreenFrame``: the title line, the list
/// (master), the selected peer (detail) and the key line, as the
/// ``TopLayout`` for the size says. Pure: the same model, size and time
/// always give the same frame.
package enum TopView {
    /// The frame for `model` and `interaction` on a `width` × `height` terminal at `now`.
    package static func frame(_ model: TopModel, _ interaction: TopInteraction, width: Int, height: Int, now: Date) -> ScreenFrame {
        var frame = ScreenFrame(width: width, height: height)
        let layout = TopLayout.choose(width: width, height: height, detailOpen: interaction.detailOpen)
        if case .tooSmall = layout {
            frame.put(TopLayout.tooSmallText(width: width, height: height), row: 0, column: 0)
            return frame
        }
        title(&frame, model)
        keyLine(&frame, interaction, model)
        let body = 1..<(height - 1)
        if interaction.mode == .help {
            help(&frame, rows: body)
            return frame
        }
        switch layout {
        case .sideBySide(let listWidth):
            list(&frame, model, rows: body, columns: 0..<listWidth, now: now)
            for row in body { frame.put("│", row: row, column: listWidth, style: .dim) }
            detail(&frame, model, rows: body, columns: (listWidth + 2)..<width, now: now)
        case .stacked(let listHeight):
            let listRows = body.lowerBound..<(body.lowerBound + listHeight)
            list(&frame, model, rows: listRows, columns: 0..<width, now: now)
            frame.put(String(repeating: "─", count: width), row: listRows.upperBound, column: 0, style: .dim)
            detail(&frame, model, rows: (listRows.upperBound + 1)..<body.upperBound, columns: 0..<width, now: now)
        case .listOnly:
            list(&frame, model, rows: body, columns: 0..<width, now: now)
        case .detailOnly:
            detail(&frame, model, rows: body, columns: 0..<width, now: now)
        case .tooSmall:
            break
        }
        return frame
    }

    /// A connected peer is green, a connecting one yellow, a lost one dim.
    static func stateStyle(_ peer: PeerSnapshot) -> CellStyle {
        switch peer.state {
        case .connected: return .green
        case .connecting: return .yellow
        case .notConnected: return peer.lost ? .dim : []
        }
    }

    private static func title(_ frame: inout ScreenFrame, _ model: TopModel) {
        let all = model.order.count
        let connected = model.peers.values.filter { $0.state == .connected }.count
        var text = " peerd top · \(all) peer\(all == 1 ? "" : "s"), \(connected) connected · sort: \(model.sort.rawValue)"
        if !model.filter.isEmpty { text += " · filter: \(TerminalText.escape(model.filter)) (\(model.visible.count) shown)" }
        frame.put(text, row: 0, column: 0, style: .reverse, fill: true)
    }

    private static func keyLine(_ frame: inout ScreenFrame, _ interaction: TopInteraction, _ model: TopModel) {
        let text: String
        switch interaction.mode {
        case .filtering: text = " filter: \(TerminalText.escape(model.filter))▏  Enter keeps it, Esc clears it"
        case .help: text = " any key closes the help"
        case .normal:
            text = interaction.note.map { " " + $0 }
                ?? " ↑↓ move  / filter  s sort  i invite  a/d accept/decline  p pair  x disconnect  ? keys  q quit"
        }
        frame.put(text, row: frame.height - 1, column: 0, style: .reverse, fill: true)
    }

    private static func list(_ frame: inout ScreenFrame, _ model: TopModel, rows: Range<Int>, columns: Range<Int>, now: Date) {
        guard rows.count >= 2 else { return }
        let width = columns.count
        // Columns that fit: name grows; address and traffic only when there is room.
        let showAddress = width >= 58, showTraffic = width >= 70
        let fixed = 13 + 2 + 9 + (showAddress ? 17 : 0) + (showTraffic ? 8 : 0)
        let nameWidth = max(8, width - fixed - 1)
        func line(_ name: String, _ state: String, _ paired: String, _ seen: String, _ address: String, _ traffic: String) -> String {
            var text = " " + pad(name, nameWidth) + pad(state, 13) + pad(paired, 2) + pad(seen, 9)
            if showAddress { text += pad(address, 17) }
            if showTraffic { text += pad(traffic, 8) }
            return text
        }
        frame.put(line("NAME", "STATE", "P", "SEEN", "ADDRESS", "MSGS"), row: rows.lowerBound, column: columns.lowerBound, limit: width, style: .bold)
        let shown = model.visible
        let room = rows.count - 1
        guard !shown.isEmpty else {
            frame.put(model.filter.isEmpty ? " no peers yet" : " no peer matches the filter", row: rows.lowerBound + 1,
                      column: columns.lowerBound, limit: width, style: .dim)
            return
        }
        let at = shown.firstIndex { $0.id == model.selected } ?? 0
        let first = min(max(0, at - room + 1), max(0, shown.count - room))
        for (offset, peer) in shown.dropFirst(first).prefix(room).enumerated() {
            let gone = model.gone.contains(peer.id)
            let state = gone ? "gone" : peer.lost && peer.state == .notConnected ? "lost" : peer.state.rawValue
            let seen = peer.lost || gone ? RelativeTime.describe(peer.lastSeen, now: now) : "now"
            let address = peer.endpoints.first?.address ?? peer.session ?? peer.learnedAddress ?? "-"
            let activity = model.activity[peer.id]
            let traffic = activity.map { "\($0.messagesDelivered + UInt64($0.messagesReceived))" } ?? "-"
            let text = line(TerminalText.escape(peer.name), state, peer.paired ? "✓" : "", seen, address, traffic)
            var style = gone ? CellStyle.dim : stateStyle(peer)
            if peer.id == model.selected { style.insert(.reverse) }
            frame.put(text, row: rows.lowerBound + 1 + offset, column: columns.lowerBound, limit: width, style: style, fill: true)
        }
    }

    private static func detail(_ frame: inout ScreenFrame, _ model: TopModel, rows: Range<Int>, columns: Range<Int>, now: Date) {
        guard let peer = model.selectedRow else {
            if !rows.isEmpty { frame.put("no peer selected", row: rows.lowerBound, column: columns.lowerBound, limit: columns.count, style: .dim) }
            return
        }
        for (offset, line) in TopDetail.lines(for: peer, in: model, now: now).prefix(rows.count).enumerated() {
            frame.put(line.text, row: rows.lowerBound + offset, column: columns.lowerBound, limit: columns.count, style: line.style)
        }
    }

    private static func help(_ frame: inout ScreenFrame, rows: Range<Int>) {
        let lines = [
            "Keys", "",
            "  ↑ ↓  j k        move the selection (it follows its peer)",
            "  PgUp PgDn g G   move by a page, to the first, to the last",
            "  Enter  Esc      open the selected peer, back to the list (narrow terminals)",
            "  /               filter by name, id or address (Esc clears)",
            "  s               sort: first seen, name, state, last seen",
            "  i               invite the selected peer",
            "  a  d            accept or decline its invitation",
            "  p               pair with it",
            "  x               disconnect it",
            "  Ctrl-L          redraw",
            "  q  Ctrl-C       quit",
        ]
        for (offset, line) in lines.prefix(rows.count).enumerated() {
            frame.put(line, row: rows.lowerBound + offset, column: 1, style: offset == 0 ? .bold : [])
        }
    }

    private static func pad(_ text: String, _ width: Int) -> String {
        let cut = DisplayWidth.truncate(text, to: width - 1)
        return cut + String(repeating: " ", count: max(0, width - DisplayWidth.of(cut)))
    }
}
