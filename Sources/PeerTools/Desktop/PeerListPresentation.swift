import FoundationEssentials
import PeerProtocol

/// The desktop app's list of peers (issue 45, point 1), from PeerKit's
/// model: sections in a fixed order (paired, nearby, added), each peer in
/// the model's stable order, so a row never jumps while it is looked at.
/// Pure: the window only draws it.
package enum PeerListPresentation {
    /// One section: its title and its peers.
    package struct Section: Equatable, Sendable {
        /// "Paired", "Nearby" or "Added".
        package var title: String
        /// Its rows, in the model's order.
        package var rows: [Row]
    }

    /// One peer's row.
    package struct Row: Equatable, Sendable {
        /// The peer's UUID (what the selection keeps).
        package var id: UUID
        /// Its name, as a peer may choose it (bounded, no control characters).
        package var name: String
        /// Its state in words: connected, connecting, not connected, lost.
        package var state: String
        /// The apps it advertises, comma-separated ("" for none).
        package var apps: String
    }

    /// The sections for `peers` (sorted as the model keeps them) and their
    /// `states`; empty sections are left out.
    package static func sections(_ peers: [PeerSnapshot], states: [UUID: ConnectionState]) -> [Section] {
        var paired: [Row] = [], nearby: [Row] = [], added: [Row] = []
        for peer in peers {
            let row = Row(id: peer.id, name: NotificationText.peerText(peer.name), state: words(peer, states[peer.id] ?? peer.state),
                          apps: (peer.apps.map { $0.keys.sorted() } ?? []).joined(separator: ", "))
            if peer.paired {
                paired.append(row)
            } else if peer.endpoints.isEmpty && peer.learnedAddress != nil {
                added.append(row)
            } else {
                nearby.append(row)
            }
        }
        return [Section(title: "Paired", rows: paired), Section(title: "Nearby", rows: nearby), Section(title: "Added", rows: added)]
            .filter { !$0.rows.isEmpty }
    }

    /// A peer's state in words.
    package static func words(_ peer: PeerSnapshot, _ state: ConnectionState) -> String {
        switch state {
        case .connected: "connected"
        case .connecting: "connecting"
        case .notConnected: peer.lost ? "lost" : "not connected"
        }
    }
}
