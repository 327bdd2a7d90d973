import FoundationEssentials
import PeerProtocol

/// A program's link to peerd: MultipeerConnectivity's shape on the
/// daemon's control socket (docs/control-protocol.md). Peers are known by
/// their UUIDs; what the daemon answers are snapshots (``PeerSnapshot``)
/// and states (``ConnectionState``).
///
/// Requests go on one connection, one at a time; each event or message
/// sequence has a connection of its own. An app registered here
/// (``register(app:info:)``) is this client's for as long as it lives,
/// and requests with `app` act for it. When the daemon restarts, the
/// request that meets the broken connection fails (it may or may not have
/// been done); the next one connects again and registers the apps anew,
/// and the sequences resume by themselves.
///
///     let client = try await PeerClient.connect()
///     try await client.register(app: "chat")
///     for peer in try await client.peers(app: "chat") { print(peer.name, peer.state) }
public actor PeerClient {
    /// The socket it talks to.
    public nonisolated let socketPath: String
    /// The connection for requests.
    let requests: ClientLane
    /// How long an event or message sequence retries a broken connection.
    public nonisolated let reconnectFor: Duration

    private init(lane: ClientLane, reconnectFor: Duration) {
        self.requests = lane
        socketPath = lane.path
        self.reconnectFor = reconnectFor
    }

    /// Connects to the daemon: at `socket`, else `$PEERD_SOCKET`, else
    /// /run/peerd/peerd.sock (``SocketPath/resolve(_:environment:)``). It
    /// asks `status` once, so a daemon that is not there fails here.
    public static func connect(socket: String? = nil, reconnectFor: Duration = .seconds(30)) async throws(PeerError) -> PeerClient {
        let lane = ClientLane(path: SocketPath.resolve(socket), label: "requests")
        _ = try await lane.call(.status)
        return PeerClient(lane: lane, reconnectFor: reconnectFor)
    }

    /// A client over a connection made already (tests: a socketpair to a
    /// fake daemon).
    package static func adopting(_ client: sending ControlClient, reconnectFor: Duration = .seconds(30)) -> PeerClient {
        PeerClient(lane: ClientLane(client, label: "requests"), reconnectFor: reconnectFor)
    }

    // MARK: The daemon

    /// The daemon's status.
    public func status() async throws(PeerError) -> DaemonStatus {
        try await requests.call(.status)
    }

    /// Registers `app` on this client's connection, with discovery `info`
    /// (published in the TXT record); it is withdrawn when the client goes.
    @discardableResult
    public func register(app: String, info: [String: String] = [:]) async throws(PeerError) -> AppRow {
        var params = ControlParams.app(app)
        params.info = info.isEmpty ? nil : info.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
        let row = try await requests.call(.register, params)
        // Held again by the next connection, after the daemon restarts.
        await requests.registerOnConnect(params)
        return row
    }

    // MARK: Peers

    /// The peers: every row, or with `app` those that advertise it, each
    /// with the app's state.
    public func peers(app: String? = nil) async throws(PeerError) -> [PeerSnapshot] {
        try await requests.call(.peers, scoped(ControlParams(), app)).peers
    }

    /// One peer, by UUID.
    public func peer(_ id: UUID) async throws(PeerError) -> PeerSnapshot {
        try await requests.call(.peer, ControlParams(peer: id.uuidString.lowercased())).peer
    }

    /// One peer, by UUID, with what the daemon knows of its connection:
    /// its datagram path and where its file and stream bytes go (`bulk`,
    /// since 0.4.0).
    public func peerDetails(_ id: UUID) async throws(PeerError) -> PeerResult {
        try await requests.call(.peer, ControlParams(peer: id.uuidString.lowercased()))
    }

    // MARK: Invitations

    /// Invites `peer` (its app `app`, or the default app), with `context`
    /// shown to whoever decides there, waiting at most `timeout` seconds.
    /// The answer comes as events (`stateChanged`, `appStateChanged`).
    @discardableResult
    public func invite(_ peer: UUID, app: String? = nil, context: String? = nil, timeout: Double? = nil) async throws(PeerError) -> InviteResult {
        try await requests.call(.invite, scoped(ControlParams(peer: peer.uuidString.lowercased(), context: context, timeout: timeout), app))
    }

    /// The invitations waiting for a decision here (of `app`, or the default app's).
    public func invitations(app: String? = nil) async throws(PeerError) -> [InvitationInfo] {
        try await requests.call(.invitations, scoped(ControlParams(), app)).invitations
    }

    /// The transfers this daemon knows, both ways, newest last (of `app`, or the default app's).
    public func transfers(app: String? = nil) async throws(PeerError) -> [TransferInfo] {
        try await requests.call(.transfers, scoped(ControlParams(), app)).transfers
    }

    /// Starts pairing with `peer` (this host is the initiator): its code
    /// comes in a `pairingCode` event, to show to the user, who types it
    /// on the other host.
    @discardableResult
    public func pair(_ peer: UUID) async throws(PeerError) -> PeerSnapshot {
        try await requests.call(.pair, ControlParams(peer: peer.uuidString.lowercased())).peer
    }

    /// Answers the pairing `id` with the `code` the other host shows; the
    /// peer, now trusted.
    @discardableResult
    public func pairAccept(_ id: String, code: String) async throws(PeerError) -> PeerSnapshot {
        try await requests.call(.pairAccept, ControlParams(pairing: id, code: code)).peer
    }

    /// Refuses the pairing `id`.
    @discardableResult
    public func pairReject(_ id: String) async throws(PeerError) -> PairingInfo {
        try await requests.call(.pairReject, ControlParams(pairing: id))
    }

    /// Removes `peer` from the trust store (here, and on the peer once connected).
    @discardableResult
    public func unpair(_ peer: UUID) async throws(PeerError) -> PeerSnapshot {
        try await requests.call(.unpair, ControlParams(peer: peer.uuidString.lowercased())).peer
    }

    /// The pairings under way.
    public func pairings() async throws(PeerError) -> [PairingInfo] {
        try await requests.call(.pairings).pairings
    }

    /// Accepts the invitation `id` (a unique prefix is enough).
    @discardableResult
    public func accept(_ id: String) async throws(PeerError) -> InvitationInfo {
        try await requests.call(.accept, ControlParams(invitation: id))
    }

    /// Declines the invitation `id`.
    @discardableResult
    public func decline(_ id: String) async throws(PeerError) -> InvitationInfo {
        try await requests.call(.decline, ControlParams(invitation: id))
    }

    /// Ends the session with `peer`, or with `app` only that app's state.
    @discardableResult
    public func disconnect(_ peer: UUID, app: String? = nil) async throws(PeerError) -> PeerSnapshot {
        let params = scoped(ControlParams(peer: peer.uuidString.lowercased()), app)
        if app == nil { return try await requests.call(.disconnect, params).peer }
        return try await requests.call(.disconnectApp, params).peer
    }

    // MARK: Messages

    /// Sends one message to `peer` on its session (queued there, in order;
    /// a `delivered` event says when the peer's daemon has it).
    @discardableResult
    public func send(_ data: [UInt8], to peer: UUID, app: String? = nil) async throws(PeerError) -> SendResult {
        try await requests.call(.send, scoped(ControlParams(peer: peer.uuidString.lowercased(), data: Data(data).base64EncodedString()), app))
    }

    /// Sends one message to each of `peers`, with a result for each (one
    /// peer's failure does not stop the rest). `queued`: kept on disk for a
    /// paired peer that is offline, and delivered once it is back.
    public func send(_ data: [UInt8], to peers: [UUID], app: String? = nil, queued: Bool = false) async throws(PeerError) -> [GroupSendEntry] {
        var params = ControlParams(data: Data(data).base64EncodedString(), queue: queued ? true : nil)
        params.peers = peers.map { $0.uuidString.lowercased() }
        return try await requests.call(.sendToMany, scoped(params, app)).results
    }

    // MARK: Sequences

    /// The daemon's events (of `app`'s peers, with `app`), from after
    /// event `since` when given. Pulled: see ``PeerEvents``.
    public nonisolated func events(app: String? = nil, since: UInt64? = nil) -> PeerEvents {
        PeerEvents(path: socketPath, app: app, since: since, take: false, reconnectFor: reconnectFor, adopted: nil)
    }

    /// The messages for this host (of `app`, or the default app's): those
    /// waiting in the inbox first, then each as it arrives. Taken: no other
    /// taker gets one this sequence got. Pulled, as ``events(app:since:)``.
    public nonisolated func messages(app: String? = nil) -> PeerMessages {
        PeerMessages(events: PeerEvents(path: socketPath, app: app, since: nil, take: true, reconnectFor: reconnectFor, adopted: nil))
    }

    private func scoped(_ params: ControlParams, _ app: String?) -> ControlParams {
        var params = params
        params.app = app
        return params
    }
}
