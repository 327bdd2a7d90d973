import FoundationEssentials
import PeerProtocol

/// Everything `peerctl top` shows, kept up to date from the daemon's
/// events (issue 14, part 1). It owns the master–detail rules: a peer has
/// one row, a row never leaves (a lost peer stays, marked lost; one the
/// daemon evicted stays, marked gone), and the selection is a peer, not a
/// row number, so it follows its peer through reorders, filters and
/// arrivals. Pure: no terminal, no socket.
package struct TopModel: Sendable {
    /// Every peer heard of, by UUID.
    package private(set) var peers: [UUID: PeerSnapshot] = [:]
    /// UUIDs in the order they were first heard of.
    package private(set) var order: [UUID] = []
    /// Peers the daemon evicted from its table (shown as gone).
    package private(set) var gone: Set<UUID> = []
    /// Invitations waiting for a decision here.
    package private(set) var invitations: [InvitationInfo] = []
    /// Pairings in progress.
    package private(set) var pairings: [PairingInfo] = []
    /// Transfers, by id.
    package private(set) var transfers: [String: TransferInfo] = [:]
    /// Queued messages for offline paired peers, by peer id.
    package private(set) var queues: [String: QueueInfo] = [:]
    /// Per peer: reasons, traffic and latest events.
    package private(set) var activity: [UUID: TopPeerActivity] = [:]
    /// The selected peer.
    package private(set) var selected: UUID?
    /// Only rows whose name, id, peer id or address contains this (case-insensitive).
    package var filter = "" { didSet { keepSelectionVisible() } }
    /// The order of the list.
    package var sort: TopSort = .firstSeen
    /// The last sequence number applied (for `since` after a reconnect).
    package private(set) var lastSeq: UInt64 = 0

    /// An empty model.
    package init() {}

    // MARK: Loading and events

    /// The lists fetched at start (after subscribing, so no event between is lost).
    package mutating func load(peers list: [PeerSnapshot], invitations: [InvitationInfo], pairings: [PairingInfo],
                              transfers: [TransferInfo], queues: [QueueInfo]) {
        for peer in list { upsert(peer) }
        self.invitations = invitations
        self.pairings = pairings
        for transfer in transfers { self.transfers[transfer.id] = transfer }
        self.queues = Dictionary(queues.map { ($0.peerId, $0) }, uniquingKeysWith: { _, last in last })
        keepSelectionVisible()
    }

    /// Replaces the queue list (fetched again after a peer's state changed).
    package mutating func setQueues(_ list: [QueueInfo]) {
        queues = Dictionary(list.map { ($0.peerId, $0) }, uniquingKeysWith: { _, last in last })
    }

    /// Applies one event.
    package mutating func apply(_ event: ControlEvent) {
        lastSeq = max(lastSeq, event.seq)
        if let peer = event.peer {
            if event.type == .peerRemoved {
                gone.insert(peer.id)
                if peers[peer.id] != nil { peers[peer.id] = peer } else { upsert(peer) }
            } else {
                gone.remove(peer.id)
                upsert(peer)
            }
        }
        let subject = event.peer?.id ?? event.invitation?.peer ?? event.pairing?.peer ?? event.transfer?.peer ?? event.message?.from ?? event.stored?.from
        switch event.type {
        case .invitation:
            if let invitation = event.invitation { invitations.removeAll { $0.id == invitation.id }; invitations.append(invitation) }
        case .stateChanged, .inviteFailed:
            if let peer = event.peer?.id {
                // A decided invitation leaves once the session moves on.
                if event.peer?.state != .connecting { invitations.removeAll { $0.peer == peer } }
                if let reason = event.reason { activity[peer, default: .init()].lastReason = reason.rawValue + (event.detail.map { ": \($0)" } ?? "") }
                if event.peer?.state == .connected { activity[peer, default: .init()].messagesDelivered = 0 }
            }
        case .pairingRequest, .pairingCode:
            if let pairing = event.pairing { pairings.removeAll { $0.id == pairing.id }; pairings.append(pairing) }
        case .paired, .pairingFailed:
            if let pairing = event.pairing { pairings.removeAll { $0.id == pairing.id } }
        case .transferOffered, .transferProgress, .transferCompleted, .transferFailed:
            if let transfer = event.transfer {
                transfers[transfer.id] = transfer
                activity[transfer.peer, default: .init()].transferBytes[transfer.id] = transfer.bytes
            }
        case .delivered:
            if let peer = event.peer?.id, let through = event.delivery?.through { activity[peer, default: .init()].messagesDelivered = through }
        case .message, .stored:
            if let from = subject { activity[from, default: .init()].messagesReceived += 1 }
        default:
            break
        }
        // Progress and acknowledgements come many a second: they update
        // figures, not the event list.
        if let subject, event.type != .transferProgress, event.type != .delivered {
            activity[subject, default: .init()].note(TopEventText.describe(event), at: event.time)
        }
        keepSelectionVisible()
    }

    private mutating func upsert(_ peer: PeerSnapshot) {
        if peers.updateValue(peer, forKey: peer.id) == nil { order.append(peer.id) }
    }

    // MARK: The list and the selection

    /// The rows shown, filtered and sorted; a row keeps its place in
    /// first-seen order whatever happens to its peer.
    package var visible: [PeerSnapshot] {
        let rows = order.compactMap { peers[$0] }.filter(matches)
        switch sort {
        case .firstSeen: return rows
        case .name: return rows.sorted { ($0.name.lowercased(), $0.id.uuidString) < ($1.name.lowercased(), $1.id.uuidString) }
        case .state: return rows.sorted { (Self.rank($0), $0.name.lowercased(), $0.id.uuidString) < (Self.rank($1), $1.name.lowercased(), $1.id.uuidString) }
        case .lastSeen: return rows.sorted { ($0.lost ? 1 : 0, -$0.lastSeen.timeIntervalSince1970, $0.id.uuidString) < ($1.lost ? 1 : 0, -$1.lastSeen.timeIntervalSince1970, $1.id.uuidString) }
        }
    }

    private static func rank(_ peer: PeerSnapshot) -> Int {
        switch peer.state {
        case .connected: return 0
        case .connecting: return 1
        case .notConnected: return peer.lost ? 3 : 2
        }
    }

    private func matches(_ peer: PeerSnapshot) -> Bool {
        guard !filter.isEmpty else { return true }
        let needle = filter.lowercased()
        let haystack = [peer.name, peer.id.uuidString, peer.peerId ?? ""] + peer.endpoints.map(\.address)
        return haystack.contains { $0.lowercased().contains(needle) }
    }

    /// The selected peer's row, if it is shown.
    package var selectedRow: PeerSnapshot? {
        guard let selected, let row = peers[selected], matches(row) else { return nil }
        return row
    }

    /// Selects `peer`.
    package mutating func select(_ peer: UUID) {
        guard peers[peer] != nil else { return }
        selected = peer
    }

    /// Moves the selection `delta` rows in the shown order (clamped).
    package mutating func move(_ delta: Int) {
        let rows = visible
        guard !rows.isEmpty else { return }
        let at = rows.firstIndex { $0.id == selected } ?? 0
        selected = rows[min(max(at + delta, 0), rows.count - 1)].id
    }

    /// A selection hidden by the filter (or none) goes to the first row
    /// shown; a shown one stays whatever moved around it.
    private mutating func keepSelectionVisible() {
        if let selected, let row = peers[selected], matches(row) { return }
        selected = visible.first?.id ?? selected
    }

    // MARK: For the detail

    /// The invitation waiting here from `peer`, if any.
    package func invitation(from peer: UUID) -> InvitationInfo? { invitations.last { $0.peer == peer } }

    /// The pairing in progress with `peer`, if any.
    package func pairing(with peer: UUID) -> PairingInfo? { pairings.last { $0.peer == peer } }

    /// Transfers with `peer`, newest first by id order of arrival.
    package func transfers(with peer: UUID) -> [TransferInfo] { transfers.values.filter { $0.peer == peer }.sorted { $0.id < $1.id } }
}
