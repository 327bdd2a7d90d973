import FoundationEssentials
import PeerProtocol

/// The detail pane's lines for one peer: who it is, where it is (each
/// endpoint by interface and family), its TXT info, its session and why
/// the last one ended, invitations, pairing, queued messages, transfers
/// with progress, and its latest events.
package enum TopDetail {
    /// One line of the pane.
    package struct Line: Equatable, Sendable {
        /// The text (already escaped).
        package var text: String
        /// How it is drawn.
        package var style: CellStyle
        init(_ text: String, _ style: CellStyle = []) {
            self.text = text
            self.style = style
        }
    }

    /// The lines for `peer` as of `now`.
    package static func lines(for peer: PeerSnapshot, in model: TopModel, now: Date) -> [Line] {
        let e = TerminalText.escape
        var lines: [Line] = [Line(e(peer.name), .bold)]
        let gone = model.gone.contains(peer.id)
        lines.append(Line("id        \(peer.id.uuidString.lowercased())"))
        lines.append(Line("peer id   \(peer.peerId ?? "- (advertises none)")"))
        let seen = gone ? "gone (evicted), seen \(RelativeTime.describe(peer.lastSeen, now: now))"
            : peer.lost ? "lost, seen \(RelativeTime.describe(peer.lastSeen, now: now))" : "present"
        lines.append(Line("seen      \(seen)", peer.lost || gone ? .dim : []))
        lines.append(Line("paired    \(peer.paired ? "yes" : "no")"))
        lines.append(Line("state     \(peer.state.rawValue)\(peer.session.map { " with \($0)" } ?? "")", TopView.stateStyle(peer)))
        let activity = model.activity[peer.id] ?? TopPeerActivity()
        if let reason = activity.lastReason, peer.state != .connected { lines.append(Line("last end  \(e(reason))", .dim)) }
        lines.append(Line("messages  \(activity.messagesDelivered) sent, \(activity.messagesReceived) received"))
        lines.append(Line("files     \(ProgressLine.bytes(activity.fileBytes))"))

        lines.append(Line(""))
        lines.append(Line("Endpoints", .bold))
        if peer.endpoints.isEmpty { lines.append(Line("  none\(peer.session == nil ? "" : " from mDNS (known by its session)")", .dim)) }
        for endpoint in peer.endpoints {
            lines.append(Line("  \(endpoint.interface.isEmpty ? "-" : e(endpoint.interface))  \(endpoint.family.rawValue)  \(endpoint.hostPort)"))
        }
        if let learned = peer.learnedAddress { lines.append(Line("  \(e(learned))  learned from a session", .dim)) }
        if let apps = peer.apps {
            lines.append(Line("Apps", .bold))
            for (name, app) in apps.sorted(by: { $0.key < $1.key }) {
                let info = app.info.sorted { $0.key < $1.key }.map { "\(e($0.key))=\(e($0.value))" }.joined(separator: " ")
                lines.append(Line("  \(name)  \(app.confirmed ? "confirmed" : "advertised")\(info.isEmpty ? "" : "  " + info)"))
            }
        }
        if !peer.info.isEmpty {
            lines.append(Line("TXT", .bold))
            for key in peer.info.keys.sorted() { lines.append(Line("  \(e(key))=\(e(peer.info[key] ?? ""))")) }
        }

        var waiting: [Line] = []
        if let invitation = model.invitation(from: peer.id) {
            let context = invitation.context.isEmpty ? "" : ": \(e(invitation.context))"
            waiting.append(Line("  invitation \(invitation.id.prefix(8)) waits (a accepts, d declines)\(context)", .yellow))
        }
        if let pairing = model.pairing(with: peer.id) {
            waiting.append(Line("  pairing \(pairing.id.prefix(8))\(pairing.code.map { ", code \($0)" } ?? "")", .yellow))
        }
        if let peerID = peer.peerId, let queue = model.queues[peerID], queue.messages > 0 {
            waiting.append(Line("  \(queue.messages) queued messages (\(ProgressLine.bytes(Int64(queue.bytes))))\(queue.busy.map { ", busy: \(e($0))" } ?? "")"))
        }
        if !waiting.isEmpty {
            lines.append(Line("Waiting", .bold))
            lines += waiting
        }
        let transfers = model.transfers(with: peer.id)
        if !transfers.isEmpty {
            lines.append(Line("Transfers", .bold))
            for t in transfers.suffix(4) {
                let total = t.acceptedBytes > 0 ? t.acceptedBytes : t.totalBytes
                let percent = total > 0 ? " \(Int(Double(t.bytes) * 100 / Double(total)))%" : ""
                let style: CellStyle = t.state == .failed ? .red : t.state.isFinished ? .dim : []
                lines.append(Line("  \(t.id.prefix(8)) \(t.direction.rawValue) \(t.state.rawValue)\(percent)  \(ProgressLine.bytes(t.bytes))/\(ProgressLine.bytes(total))  \(e(t.name))", style))
            }
        }
        if !activity.events.isEmpty {
            lines.append(Line("Latest events", .bold))
            for event in activity.events.reversed() {
                let age = RelativeTime.describe(event.time, now: now)
                lines.append(Line("  \(age)\(String(repeating: " ", count: max(1, 9 - age.count)))\(event.text)"))
            }
        }
        return lines
    }
}
