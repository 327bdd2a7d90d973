import FoundationEssentials
import PeerProtocol

/// The desktop app's detail of the selected peer (issue 45, point 1): its
/// facts, and the actions that fit its state. Pure: the window draws it
/// and performs an action through PeerKit.
package struct PeerDetailPresentation: Equatable, Sendable {
    /// What the user can do with a peer from the detail.
    package enum Action: String, Equatable, Sendable, CaseIterable {
        case invite, disconnect, pair, unpair
        /// Quick Save on, into the user's download folder; on, into a
        /// folder the user chooses; off (a paired peer's rule, issue 45).
        case quickSaveOn, quickSaveChoose, quickSaveOff

        /// The button's label (and accessible name).
        package var label: String {
            switch self {
            case .invite: "Invite"
            case .disconnect: "Disconnect"
            case .pair: "Pair"
            case .unpair: "Unpair"
            case .quickSaveOn: "Turn on Quick Save"
            case .quickSaveChoose: "Quick Save into…"
            case .quickSaveOff: "Turn off Quick Save"
            }
        }
    }

    /// The title: the peer's name.
    package var title: String
    /// (label, value) lines: id, state, release, addresses, session, apps.
    package var facts: [Fact]
    /// The actions its state allows, in order.
    package var actions: [Action]

    /// One line of the detail.
    package struct Fact: Equatable, Sendable {
        /// What it is.
        package var label: String
        /// Its value.
        package var value: String
    }

    /// The detail of `peer` in `state`; `pairing`: one under way with it
    /// (no Pair button meanwhile); `quickSave`: the paired peer's rule,
    /// shown, and changed from here when it is `uid`'s or there is none
    /// (another user's rule is theirs).
    package init(_ peer: PeerSnapshot, state: ConnectionState, pairing: DesktopInbox.Pairing? = nil, quickSave: QuickSaveRule? = nil,
                 uid: UInt32? = nil, details: PeerResult? = nil) {
        title = NotificationText.peerText(peer.name)
        var facts = [Fact(label: "State", value: PeerListPresentation.words(peer, state)),
                     Fact(label: "Peer id", value: peer.peerId ?? "unknown (never connected)")]
        if let release = peer.release { facts.append(Fact(label: "Release", value: NotificationText.peerText(release))) }
        let addresses = peer.endpoints.map(\.hostPort) + (peer.endpoints.isEmpty ? [peer.learnedAddress].compactMap { $0 } : [])
        facts.append(Fact(label: "Addresses", value: addresses.isEmpty ? "none" : addresses.joined(separator: ", ")))
        if let session = peer.session { facts.append(Fact(label: "Session", value: session)) }
        // The paths of a connected peer (`peer`'s answer), and the round trip on them.
        if state == .connected, let details, details.peer.id == peer.id {
            if let trip = PeerPathText.roundTrip(details.datagrams) { facts.append(Fact(label: "Round trip", value: trip)) }
            if let bulk = details.bulk { facts.append(Fact(label: "Files and streams", value: PeerPathText.bulk(bulk))) }
            if let datagrams = details.datagrams { facts.append(Fact(label: "Datagrams", value: PeerPathText.datagrams(datagrams))) }
        }
        facts.append(Fact(label: "Paired", value: peer.paired ? "yes" : "no"))
        if let apps = peer.apps, !apps.isEmpty { facts.append(Fact(label: "Apps", value: apps.keys.sorted().joined(separator: ", "))) }
        self.facts = facts
        var actions: [Action]
        switch state {
        case .connected, .connecting: actions = [.disconnect]
        case .notConnected: actions = peer.lost ? [] : [.invite]
        }
        if peer.paired { actions.append(.unpair) } else if pairing == nil, !peer.lost { actions.append(.pair) }
        if peer.paired {
            let words = quickSave.map { rule in
                rule.uid == uid ? "on: its files come without asking, into \(rule.folder)" : "another user's (uid \(rule.uid))"
            } ?? "off: its files are offered first"
            self.facts.append(Fact(label: "Quick Save", value: words))
            if quickSave == nil { actions += [.quickSaveOn, .quickSaveChoose] }
            else if quickSave?.uid == uid { actions += [.quickSaveChoose, .quickSaveOff] }
        }
        self.actions = actions
    }
}
