import FoundationEssentials
import PeerCore
import PeerProtocol

/// The main actor's one read model of peer rows, fed from the
/// ``IdentityActor``'s changes, with what only the main actor knows laid
/// over them: session state, trust, and presence through a session.
///
/// It logs each change and sends it to subscribers as an event. Nothing
/// else keeps rows, names or states.
@MainActor
package final class PeerDirectory {
    private var order: [UUID] = []
    private var rows: [UUID: PeerSnapshot] = [:]
    private var states: [UUID: ConnectionState] = [:]
    /// When each peer's last session ended (what a row without endpoints
    /// shows as last seen).
    private var sessionEnded: [UUID: Date] = [:]
    private var rejected = RefusalCounter()
    /// What each peer's last session said of it in the handshake.
    private var announced: [UUID: PeerHello] = [:]
    /// The apps each peer's daemon confirmed over its current session
    /// (`appList`), until the session ends.
    private var confirmedApps: [UUID: [String]] = [:]
    private let logger: Logger
    private let maxPeers: Int
    private let maxUnverifiedPeers: Int
    private let clock: DaemonClock
    /// Whether a peer id is in the trust store (given at init).
    private let isPaired: @MainActor (String) -> Bool
    /// The sessions, for the address of a peer's live, authenticated one
    /// (given at init: the daemon's one table).
    private let sessions: SessionTable?
    /// The address of a peer's live, authenticated session, if any.
    private func liveSession(_ peer: UUID) -> String? { sessions?.liveAddress(peer) }
    /// Numbers and sends an event to subscribers (given at init).
    private let emit: @MainActor (ControlEvent) -> Void

    /// An empty directory; the caps are for log lines; `isPaired` asks
    /// the trust store.
    package init(logger: Logger, maxPeers: Int, maxUnverifiedPeers: Int, clock: DaemonClock = .system, sessions: SessionTable? = nil,
                isPaired: @escaping @MainActor (String) -> Bool, emit: @escaping @MainActor (ControlEvent) -> Void) {
        self.isPaired = isPaired
        self.sessions = sessions
        self.emit = emit
        self.clock = clock
        self.logger = logger
        self.maxPeers = maxPeers
        self.maxUnverifiedPeers = maxUnverifiedPeers
    }

    /// Every row as clients see it, in first-seen order.
    package var all: [PeerSnapshot] { order.compactMap { rows[$0].map(presence) } }

    /// The one row a client's selector names (``PeerSelector``), as
    /// clients see it. Matching reads only ids and names, which presence
    /// does not change, so only the row chosen is dressed: a script's
    /// `send`s do not each build every row.
    package func select(_ query: String) -> Result<PeerSnapshot, ControlError> {
        // A full UUID or an exact name, the common case, builds no array
        // of rows (that was a fifth of the sending daemon's time on the
        // JSON `send` path); anything else goes the full way.
        if let id = PeerSelector.direct(query, among: order, name: { rows[$0]?.name }), let row = rows[id] {
            return .success(presence(row))
        }
        return PeerSelector.select(query, from: order.compactMap { rows[$0] }).map(presence)
    }

    /// One row as clients see it.
    package func row(_ id: UUID) -> PeerSnapshot? { rows[id].map(presence) }

    /// The row of the peer that proved `peerID`, if it has one.
    package func row(peerID: String) -> PeerSnapshot? { rows.values.first { $0.peerId == peerID }.map(presence) }

    /// A peer's session state.
    package func state(of id: UUID) -> ConnectionState { states[id] ?? .notConnected }

    /// Peers with a connected session.
    package var connectedCount: Int { states.values.filter { $0 == .connected }.count }

    /// Every address some row's endpoints use.
    package var endpointAddresses: [String] { rows.values.flatMap { $0.endpoints.map(\.address) } }

    /// Peers turned away at the caps so far.
    package var rejectedCount: Int { rejected.count }

    /// Records one more peer turned away at the cap; true when it should be logged.
    package func recordRejected() -> Bool { rejected.record() }

    /// Rows that exist from the start (paired peers under their stored UUIDs).
    package func seed(_ snapshots: [PeerSnapshot]) {
        for row in snapshots where rows[row.id] == nil {
            order.append(row.id)
            rows[row.id] = decorate(row)
        }
    }

    /// The identity actor's changes: kept, logged, sent to subscribers.
    package func apply(_ changes: [PeerChange]) {
        for change in changes {
            let kind: EventKind
            let peer: PeerSnapshot
            switch change {
            case .found(let snapshot):
                kind = .peerFound
                peer = snapshot
                logger.info("peer found: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased()) at \(snapshot.endpoints.map(\.hostPort).joined(separator: ", "))")
            case .updated(let snapshot):
                kind = .peerUpdated
                peer = snapshot
                logger.debug("peer updated: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased())")
            case .lost(let snapshot):
                kind = .peerLost
                peer = snapshot
                logger.info("peer lost: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased())")
            case .evicted(let snapshot):
                logger.debug("peer row evicted to make room: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased())")
                sessionEnded[snapshot.id] = nil
                announced[snapshot.id] = nil
                rows[snapshot.id] = nil
                states[snapshot.id] = nil
                order.removeAll { $0 == snapshot.id }
                emit(ControlEvent(seq: 0, type: .peerRemoved, time: clock.now(), peer: snapshot))
                continue
            case .rejectedAtCap(let key, let unverifiedCap):
                if rejected.record() {
                    let cap = unverifiedCap ? "unverified-peer cap (\(maxUnverifiedPeers) peers known from mDNS alone)" : "peer cap (\(maxPeers))"
                    logger.warning("\(cap) reached; not tracking \(key) (\(rejected.count) turned away so far)")
                }
                continue
            }
            let row = decorate(peer)
            if rows[row.id] == nil { order.append(row.id) }
            rows[row.id] = row
            let shown = presence(row)
            emit(ControlEvent(seq: 0, type: kind, time: clock.now(), peer: shown))
        }
    }

    /// A peer's session state changed: kept, logged, sent as `stateChanged`.
    package func setState(_ state: ConnectionState, for peer: UUID, reason: CloseReason?, detail: String? = nil) {
        guard self.state(of: peer) != state else { return }
        states[peer] = state == .notConnected ? nil : state
        guard var row = rows[peer] else { return }
        row.state = state
        rows[peer] = row
        logger.info("peer '\(row.name)' \(peer.uuidString.lowercased()): \(state.rawValue)\(reason.map { " (\($0.rawValue))" } ?? "")")
        emit(ControlEvent(seq: 0, type: .stateChanged, time: clock.now(), peer: presence(row), reason: reason, detail: detail))
    }

    /// The peer's state did not change but what it means did (the default
    /// app joined a session accepted for an app alone): clients hear the
    /// row again, as a `stateChanged`.
    package func restate(_ peer: UUID, detail: String) {
        guard let row = rows[peer] else { return }
        emit(ControlEvent(seq: 0, type: .stateChanged, time: clock.now(), peer: presence(row), detail: detail))
    }

    /// A session with the peer said its release and features (its
    /// handshake): rows show them from now on, after the session too.
    package func heard(_ hello: PeerHello, from peer: UUID) {
        announced[peer] = hello
    }

    /// The peer's authenticated session ended now: what it confirmed is
    /// only advertised again.
    package func sessionEnded(_ peer: UUID, at time: Date) {
        sessionEnded[peer] = time
        if confirmedApps.removeValue(forKey: peer) != nil, let row = rows[peer] {
            emit(ControlEvent(seq: 0, type: .peerUpdated, time: clock.now(), peer: presence(row)))
        }
    }

    /// The peer's daemon confirmed its apps over the session (`appList`):
    /// the row marks them confirmed, and subscribers hear `peerUpdated`
    /// when the list changed.
    package func confirm(apps names: [String], for peer: UUID) {
        let kept = Array(Set(names.filter { (try? AppName($0)) != nil })).sorted()
        guard confirmedApps[peer] != kept else { return }
        confirmedApps[peer] = kept
        guard let row = rows[peer] else { return }
        logger.info("peer '\(row.name)' confirms app\(kept.count == 1 ? "" : "s"): \(kept.isEmpty ? "none" : kept.joined(separator: ", "))")
        emit(ControlEvent(seq: 0, type: .peerUpdated, time: clock.now(), peer: presence(row)))
    }

    /// Trust changed for the row: its `paired` flag is read again.
    package func refresh(_ peer: UUID) {
        guard let row = rows[peer] else { return }
        rows[peer] = decorate(row)
    }

    private func decorate(_ peer: PeerSnapshot) -> PeerSnapshot {
        var row = peer
        // Session state is the main actor's to say; the registry's copy may lag.
        row.state = states[peer.id] ?? .notConnected
        row.paired = peer.peerId.map(isPaired) ?? false
        return row
    }

    /// A row's presence as of now: a row known only through its session is
    /// present while the session lives (see ``SessionPresence``).
    private func presence(_ row: PeerSnapshot) -> PeerSnapshot {
        var shown = SessionPresence.apply(to: row, sessionAddress: liveSession(row.id), lastSessionEnd: sessionEnded[row.id], now: clock.now())
        if let hello = announced[row.id] {
            shown.release = hello.release
            shown.features = hello.names
        }
        if let confirmed = confirmedApps[row.id] {
            shown.apps = AdvertisedApp.merge(advertised: shown.apps, confirmed: confirmed)
        }
        return shown
    }
}
