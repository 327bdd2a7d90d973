import FoundationEssentials
import Observation
import PeerProtocol

/// The model for UI code, on the main actor: the peers (sorted by name,
/// then id, so the order is stable), each one's state by UUID, and a
/// selection kept by UUID across re-sorts and across the peer leaving and
/// coming back. Fed by a ``PeerClient``'s sequences (``run(_:)``), never
/// the other way: UI code reads it and is told of each change, by
/// Observation (`withObservationTracking`, or a UI framework's) and by the
/// callback given at init (a terminal program's).
///
///     let model = PeerSessionManager(app: "chat") { model in redraw(model.peers) }
///     Task { await model.run(client) }
@MainActor
@Observable
public final class PeerSessionManager {
    /// The app whose peers and states it shows; nil for the default app.
    public nonisolated let app: String?
    /// The peers, sorted by name, then id.
    public private(set) var peers: [PeerSnapshot] = []
    /// Each peer's state (the app's state with it, for an app).
    public private(set) var peerStates: [UUID: ConnectionState] = [:]
    /// The selected peer, by UUID: it stays selected while it moves in the
    /// list, and again when it comes back after leaving.
    public var selection: UUID? {
        didSet { if selection != oldValue { changed(self) } }
    }
    /// The selected peer's row, while it is listed.
    public var selectedPeer: PeerSnapshot? { peers.first { $0.id == selection } }
    /// Told after every change (given at init, so it cannot be forgotten).
    @ObservationIgnored private let changed: @MainActor (PeerSessionManager) -> Void

    /// A model of `app`'s peers; `changed` is called after each change.
    public init(app: String? = nil, changed: @escaping @MainActor (PeerSessionManager) -> Void) {
        self.app = app
        self.changed = changed
    }

    /// The UUIDs of the peers connected now.
    public var connected: [UUID] { peers.filter { peerStates[$0.id] == .connected }.map(\.id) }

    /// Follows `client`: the peers now, then every event; after a gap the
    /// peers are fetched again. Returns when the sequence fails (the error)
    /// or the task is cancelled (nil).
    public func run(_ client: PeerClient) async -> PeerError? {
        do {
            replace(try await client.peers(app: app))
            for try await event in client.events(app: app) {
                if Task.isCancelled { return nil }
                if case .gap = event { replace(try await client.peers(app: app)) } else { apply(event) }
            }
            return nil
        } catch {
            return error
        }
    }

    /// Every row at once (after connecting, or a gap).
    public func replace(_ rows: [PeerSnapshot]) {
        peers = Self.sorted(rows)
        peerStates = Dictionary(rows.map { ($0.id, $0.state) }, uniquingKeysWith: { _, last in last })
        changed(self)
    }

    /// One event.
    public func apply(_ event: PeerEvent) {
        guard case .event(let event) = event, let row = event.peer else { return }
        switch event.type {
        case .peerFound, .peerUpdated, .peerLost, .stateChanged:
            if let app, row.apps?[app] == nil {
                // It no longer runs the app: it leaves the app's list.
                peers.removeAll { $0.id == row.id }
                peerStates[row.id] = nil
            } else {
                upsert(row, state: app == nil ? row.state : (peerStates[row.id] ?? .notConnected))
            }
        case .appStateChanged where event.app?.app == app:
            upsert(row, state: event.app?.state ?? .notConnected)
        case .peerRemoved:
            peers.removeAll { $0.id == row.id }
            peerStates[row.id] = nil
        default:
            return
        }
        changed(self)
    }

    private func upsert(_ row: PeerSnapshot, state: ConnectionState) {
        var rows = peers.filter { $0.id != row.id }
        var shown = row
        shown.state = state
        rows.append(shown)
        peers = Self.sorted(rows)
        peerStates[row.id] = state
    }

    private static func sorted(_ rows: [PeerSnapshot]) -> [PeerSnapshot] {
        rows.sorted { ($0.name, $0.id.uuidString) < ($1.name, $1.id.uuidString) }
    }
}
