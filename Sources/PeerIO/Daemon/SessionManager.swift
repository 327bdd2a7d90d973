import Dispatch
import FoundationEssentials
import CMalloc
import Glibc
import PeerCore

/// The daemon's session layer, being taken apart (issue 11): it owns the
/// session listener and the control server, the sessions and their rules,
/// pairing and the peer read model, and composes the components that
/// already stand alone: ``DiscoveryCoordinator`` (Avahi and publication),
/// ``QueuedDelivery``, ``InboxDelivery`` and ``ServiceHealth``.
@MainActor
public final class SessionManager: SessionOperations, PeerSessionDelegate {
    private let config: DaemonConfiguration
    private let logger: Logger
    private let identityKey: IdentityKey
    private let identity: IdentityActor
    private let control: ControlServer
    private let sessionListener: TCPListener
    private let discovery: DiscoveryCoordinator
    private var journal: EventJournal
    private let directory: PeerDirectory
    private var sessionAcceptSource: (any DispatchSourceRead)?
    private let startedAt = Date()
    private var stopped = false

    // Sessions. `sessionByPeer` holds the one session that counts for a peer
    // (dialling, handshaking, inviting, awaiting a decision or connected);
    // others are accepted connections not yet authenticated, or losers of
    // the crossing rule on their way out.
    private var sessions: [ObjectIdentifier: PeerSession] = [:]
    private var sessionByPeer: [UUID: PeerSession] = [:]
    /// Since when sessions are held back for a subscriber that is behind.
    private var heldSince: Date?
    private let invitations: InvitationDesk
    private var awaitingCrossed: [UUID: Date] = [:]
    private var nextSessionNumber = 1
    private var tickTimer: (any DispatchSourceTimer)?
    private var sessionLimits: SessionLifecycle.Limits {
        var limits = SessionLifecycle.Limits()
        limits.maxMessage = config.maxMessage
        return limits
    }
    /// Application bytes queued per session before `send` answers `busy`:
    /// 4 MiB, or one whole `--max-message` message with its framing when
    /// that is larger, so every size up to `--max-message` can be sent.
    private var sessionSendLimit: Int { max(4 << 20, WireCodec.framedSize(ofMessage: config.maxMessage)) }

    private let pairing: PairingCoordinator
    private let reconnect: ReconnectController
    private let health = ServiceHealth()
    private var refusedHandshakes = RefusalCounter()
    private lazy var connectionLimiter = RateLimiter<String>(perSecond: Double(config.connectionRate), burst: Double(config.connectionRate * 2))
    private var refusedByRate = RefusalCounter()
    private var refusedAtSessionCap = RefusalCounter()
    private let queued: QueuedDelivery
    /// Answers control requests (``ControlServer/handler`` holds it weakly).
    private var router: ControlRouter?
    /// Messages no client takes wait here (see ``InboxDelivery``).
    private lazy var inbox = InboxDelivery(
        stateDirectory: config.stateDirectory, limit: config.inboxBytes, budget: config.subscriberQueueBytes / 2,
        control: control, logger: logger,
        lookUp: { [unowned self] peerID in self.sender(peerID) },
        number: { [unowned self] event in self.journal.record(event, replayable: false) })

    /// Every row as clients see it, in first-seen order.
    private var peers: [PeerSnapshot] { directory.all }

    /// Rows the identity actor may not evict: paired peers, and peers with a session.
    private var protectedRows: Set<UUID> {
        Set(pairing.records.map(\.uuid)).union(sessions.values.compactMap(\.peerUUID))
    }

    /// Which sessions are taken (``SessionAdmission``).
    private var admission: SessionAdmission {
        SessionAdmission(maxSessions: config.maxSessions, maxPending: config.maxPendingHandshakes,
                         maxPendingPerAddress: config.maxPendingHandshakesPerAddress)
    }

    /// Authenticated sessions other than `except`, for admission.
    private func authenticatedSessions(except: PeerSession? = nil) -> [SessionAdmission.Authenticated] {
        sessions.values.filter { $0 !== except && $0.remoteStaticKey != nil && !$0.phase.isClosedPhase }.map {
            SessionAdmission.Authenticated(address: $0.remoteHost, paired: isPaired($0.remotePeerID),
                                           accepted: $0.isConnected)
        }
    }

    private func isPaired(_ peerID: String?) -> Bool { pairing.isPaired(peerID) }

    /// Addresses known peers use: every row's endpoints and paired peers' last addresses.
    private var knownAddresses: Set<String> {
        Set(directory.endpointAddresses + pairing.records.flatMap { ($0.addresses ?? []).map(\.address) })
    }

    /// Binds every socket and loads the identity; nothing runs until ``start()``.
    /// Large buffers (a long request line, a backed-up session) are given
    /// their own mappings, so freeing them returns the memory at once:
    /// glibc's default would raise that threshold after the first one.
    public init(config: DaemonConfiguration, logger: Logger, activatedControlSocket: FileDescriptor? = nil) throws(DaemonStartupError) {
        self.config = config
        self.logger = logger
        _ = mallopt(M_MMAP_THRESHOLD, 256 * 1024)
        do { try Sodium.initialize() } catch { throw .crypto(error.description) }
        let interfaceIndexes: [Int32]
        do {
            interfaceIndexes = try config.interfaces.map { name throws(SystemError) in try InterfaceNames.index(of: name) }
        } catch {
            throw .interface(error)
        }
        let loaded: (key: IdentityKey, created: Bool)
        do { loaded = try IdentityKey.loadOrCreate(in: config.stateDirectory) } catch { throw .identity(error) }
        identityKey = loaded.key
        let txt: TXTRecord
        do { txt = try TXTRecord(peerID: loaded.key.peerID, info: config.info) } catch { throw .txt(error.description) }
        let portNote: String?
        do {
            (sessionListener, portNote) = try SessionPortFile.openListener(configured: config.port, stateDirectory: config.stateDirectory)
        } catch {
            throw .sessionPort(error)
        }
        do {
            control = try ControlServer(path: config.socketPath, queueLimit: config.subscriberQueueBytes,
                                        maxLine: ControlProtocol.maxRequestLineBytes(maxMessage: config.maxMessage), logger: logger,
                                        activated: activatedControlSocket, mode: config.publicRead ? 0o666 : 0o660,
                                        group: PeerCredentials.groupID(named: config.group))
        } catch {
            sessionListener.close()
            throw .controlSocket(error)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: AvahiBridgeEvent.self, bufferingPolicy: .unbounded)
        let avahi: AvahiController
        do { avahi = try AvahiController(continuation: continuation) } catch {
            sessionListener.close()
            throw .avahi(error)
        }
        let opened: (store: TrustStore, movedAside: String?)
        do { opened = try TrustStore.open(in: config.stateDirectory, reset: config.resetTrust) } catch {
            sessionListener.close()
            control.stop(time: Date())
            avahi.shutdown()
            throw .trust(error)
        }
        do { queued = try QueuedDelivery(stateDirectory: config.stateDirectory, logger: logger) } catch {
            sessionListener.close()
            control.stop(time: Date())
            avahi.shutdown()
            throw .queue(error)
        }
        if let aside = opened.movedAside { logger.warning("--reset-trust: moved the unreadable trust store to \(aside); no peer is trusted now") }
        // Paired peers keep the UUIDs they were given, across restarts.
        identity = IdentityActor(maxPeers: config.maxPeers, maxUnverified: config.maxUnverifiedPeers,
                                 known: opened.store.document.peers.map { KnownPeer(peerID: $0.peerId, uuid: $0.uuid, name: $0.name) })
        // The maximum number of open resolvers: bounded by Avahi's
        // per-client object limit (1024 by default) anyway, and by the peer cap.
        discovery = DiscoveryCoordinator(avahi: avahi, events: stream, identity: identity, logger: logger, name: config.name,
                                         serviceType: config.serviceType, interfaceIndexes: interfaceIndexes, txt: txt,
                                         port: sessionListener.port, ownPeerID: loaded.key.peerID,
                                         maxResolvers: min(1000, max(64, config.maxPeers * 4)))
        reconnect = ReconnectController(enabled: config.autoConnect, interfaces: Set(interfaceIndexes), logger: logger)
        journal = EventJournal(capacity: config.eventHistory)
        invitations = InvitationDesk(rate: config.invitationRate, logger: logger)
        directory = PeerDirectory(logger: logger, maxPeers: config.maxPeers, maxUnverifiedPeers: config.maxUnverifiedPeers)
        pairing = PairingCoordinator(trust: opened.store, timeout: config.pairingTimeout, autoAccept: config.autoAccept,
                                     directory: directory, logger: logger)
        if let portNote { logger.notice(portNote) }
        if loaded.created {
            logger.notice("generated a new identity key in \(config.stateDirectory)/\(IdentityKey.fileName)")
        }
    }

    /// Starts serving: control clients, the session port, and Avahi.
    public func start() {
        wireComponents()
        // Room for one whole message event past --subscriber-queue: the flow
        // of messages is held back at half of it, so only the message that
        // crossed the mark can come on top.
        control.messageAllowance = ControlProtocol.maxRequestLineBytes(maxMessage: config.maxMessage)
        control.maxClients = config.maxClients
        control.groupName = config.group
        control.policy = AccessPolicy(groupID: PeerCredentials.groupID(named: config.group), publicRead: config.publicRead)
        if control.policy.groupID == nil { logger.notice("group '\(config.group)' does not exist: only root may use the control socket") }
        control.start()
        let source = DispatchSource.makeReadSource(fileDescriptor: sessionListener.descriptor.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.acceptSessions() } }
        sessionAcceptSource = source
        source.resume()
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.tick() } }
        tickTimer = timer
        timer.resume()
        reconnect.start()
        // Rows for paired peers exist from the start, under their stored UUIDs.
        Task { [weak self] in
            guard let self else { return }
            self.directory.seed(await self.identity.snapshots())
        }
        logger.info("peerd \(PeerdVersion.string) starting: peer id \(identityKey.peerID), name '\(config.name)', type \(config.serviceType), session port \(sessionListener.port)\(sessionListener.dualStack ? " (IPv4+IPv6)" : " (IPv4)"), control socket \(control.path)")
        discovery.start()
        health.ready(status: serviceStatusLine(), now: Date())
    }

    /// Connects the components: who asks whom, and who hears what.
    private func wireComponents() {
        let router = ControlRouter(maxMessage: config.maxMessage, directory: directory, pairing: pairing, invitations: invitations,
                                   queued: queued, inbox: inbox, sessions: self)
        router.replay = { [weak self] after in
            guard let self else { return (0, [], false) }
            let held = self.journal.events(after: after ?? self.journal.lastSeq)
            return (self.journal.lastSeq, held.events, held.truncated)
        }
        self.router = router
        control.handler = router
        control.onSubscriberDrained = { [weak self] in self?.releaseHeldSessions() }
        control.onClientWrote = { [weak self] connection in self?.inbox.written(connection) }
        control.onClientClosed = { [weak self] connection in self?.inbox.closed(connection) }
        inbox.onRoom = { [weak self] in self?.reconnect.inboxHasRoom() }
        reconnect.hasSession = { [weak self] peer in self.map { $0.sessionByPeer[peer] != nil || $0.awaitingCrossed[peer] != nil } ?? true }
        reconnect.stalledDials = { [weak self] in
            guard let self else { return [] }
            return self.sessionByPeer.values.filter { $0.isTCPConnecting && self.pairing.isPaired($0.expectedPeerID) }
        }
        reconnect.paired = { [weak self] in self?.pairing.records ?? [] }
        reconnect.row = { [weak self] peer in self?.directory.row(peer) }
        reconnect.dial = { [weak self] peer, endpoints, peerID in
            guard let self else { return }
            self.dial(peer, endpoints: self.dialOrder(endpoints), expected: peerID, context: [], timeout: 30)
        }
        directory.isPaired = { [weak self] peerID in self?.pairing.isPaired(peerID) ?? false }
        pairing.emit = { [weak self] event in self?.emit(event) }
        pairing.subscribers = { [weak self] in self?.control.subscriberCount ?? 0 }
        pairing.onUnpaired = { [weak self] peerID, peer in self?.queued.discard(peerID, peer: peer) }
        directory.liveSession = { [weak self] peer in
            self?.sessionByPeer[peer].flatMap { $0.isAuthenticated && !$0.phase.isClosedPhase ? TCPConnector.plainHost($0.remoteHost) : nil }
        }
        directory.emit = { [weak self] event in self?.emit(event) }
        invitations.onWaiting = { [weak self] info in
            guard let self else { return }
            self.directory.nameFromInvitation(info.peer, info.name)
            self.emit(ControlEvent(seq: 0, type: .invitation, time: Date(), peer: self.directory.row(info.peer), invitation: info))
        }
        directory.onRow = { [weak self] row, kind in self?.rowChanged(row, kind) }
        discovery.onChanges = { [weak self] changes in self?.publish(changes) }
        discovery.protectedRows = { [weak self] in self?.protectedRows ?? [] }
    }

    /// The one-line status systemd shows (`systemctl status peerd`).
    private func serviceStatusLine() -> String {
        let peers = peers
        let connected = directory.connectedCount
        return "'\(discovery.name)' \(discovery.publication.rawValue); avahi \(discovery.avahiStatus.rawValue); \(peers.filter { !$0.lost }.count) peers present, \(connected) connected"
    }

    /// Withdraws the service, frees Avahi, closes the sockets and removes the
    /// control socket. Idempotent.
    public func shutdown() {
        guard !stopped else { return }
        stopped = true
        health.stopping()
        tickTimer?.cancel()
        reconnect.stop()
        for session in sessions.values { session.close("peerd is stopping") }
        discovery.shutdown()
        sessionAcceptSource?.cancel()
        sessionListener.close()
        control.stop(time: Date())
        logger.info("stopped")
    }

    /// Records the identity actor's changes in the directory (which logs
    /// them and tells subscribers).
    private func publish(_ changes: [PeerChange]) {
        directory.apply(changes)
    }

    /// A row was found or updated: paired peers are dialled when they
    /// appear, and a connected paired peer's addresses are remembered.
    private func rowChanged(_ row: PeerSnapshot, _ kind: EventKind) {
        if kind == .peerFound { reconnect.appeared(row, now: Date()) }
        if row.paired && row.state == .connected { rememberAddresses(of: row.id) }
    }

    private func acceptSessions() {
        while true {
            do {
                guard let connection = try sessionListener.accept() else { return }
                // Unauthenticated connections are capped in all and per
                // address, so a flood cannot crowd out real peers; each is
                // dropped anyway when its 5 s handshake budget runs out.
                let address = TCPConnector.peerAddress(connection)
                guard connectionLimiter.allow(address, now: Date()) else {
                    if refusedByRate.record() {
                        logger.warning("\(address) connects faster than \(config.connectionRate)/s; refusing (\(refusedByRate.count) refused so far)")
                    }
                    connection.close()
                    continue
                }
                // Handshakes under way are capped in all and per address; a
                // stranger's idle connection gives way to a newcomer, and
                // known peers' addresses are never the ones to give way.
                let host = TCPConnector.plainHost(address)
                let known = knownAddresses
                let pending = sessions.values.filter { $0.role == .invitee && $0.remoteStaticKey == nil && !$0.phase.isClosedPhase }
                let verdict = admission.admitConnection(
                    from: host, known: known.contains(host),
                    pending: pending.map { .init(number: $0.number, address: $0.remoteHost, known: known.contains($0.remoteHost)) })
                switch verdict {
                case .admit:
                    break
                case .admitEvicting(let number):
                    pending.first { $0.number == number }?.close("a newer connection needs the handshake slot", reason: .handshakeFailed)
                case .refuse(let limit):
                    if refusedHandshakes.record() {
                        logger.warning("\(limit); refusing \(address) (\(refusedHandshakes.count) refused so far)")
                    }
                    connection.close()
                    continue
                }
                let session = PeerSession(number: nextSessionNumber, accepted: connection, identity: identityKey,
                                          limits: sessionLimits, sendLimit: sessionSendLimit, delegate: self)
                nextSessionNumber += 1
                sessions[ObjectIdentifier(session)] = session
                logger.debug("session \(session.number): accepted from \(session.remoteAddress)")
            } catch {
                logger.warning("session port: \(error)")
                return
            }
        }
    }

    /// Who sent a stored or arriving message, as clients see it.
    private func sender(_ peerID: String) -> InboxDelivery.Sender {
        if let record = pairing.record(peerID: peerID) { return .init(uuid: record.uuid, name: record.name, paired: true) }
        let row = directory.row(peerID: peerID)
        return .init(uuid: row?.id, name: row?.name, paired: false)
    }


    // MARK: SessionOperations

    /// Closes the session with the peer (`disconnect`).
    public func disconnect(_ peer: PeerSnapshot) -> Result<PeerResult, ControlError> {
        guard let session = sessionByPeer[peer.id] else { return .failure(ControlError(.notConnected, "no session with '\(peer.name)'")) }
        session.close("closed by a local client")
        return .success(PeerResult(peer: directory.row(peer.id) ?? peer))
    }

    /// Queues one message on the peer's connected session (plain `send`).
    public func send(_ data: [UInt8], to peer: PeerSnapshot) -> Result<SendResult, ControlError> {
        guard let session = sessionByPeer[peer.id], session.isConnected else {
            return .failure(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first, or use --queue for a paired peer"))
        }
        guard let number = session.send(data) else {
            return .failure(ControlError(.busy, "the send queue to '\(peer.name)' is full (\(session.queuedBytes) bytes); retry shortly"))
        }
        // OK means: queued on this session, in order. A `delivered`
        // event says when the peer's daemon has it.
        return .success(SendResult(bytes: data.count, session: session.number, number: number))
    }

    /// The daemon's status (`status`).
    public func status() -> DaemonStatus {
        let peers = peers
        return DaemonStatus(
            version: PeerdVersion.string, pid: getpid(), uptime: Int(Date().timeIntervalSince(startedAt)),
            peerId: identityKey.peerID, requestedName: discovery.requestedName, name: discovery.name,
            serviceType: config.serviceType, port: sessionListener.port, interfaces: config.interfaces,
            avahi: discovery.avahiStatus, avahiMessage: discovery.statusMessage, publication: discovery.publication,
            peers: peers.count, lostPeers: peers.filter(\.lost).count, maxPeers: config.maxPeers,
            peersRejected: directory.rejectedCount, eventSeq: journal.lastSeq, socket: control.path,
            sessions: sessions.count, subscribers: control.subscriberCount,
            unverifiedPeers: discovery.unverifiedPeers, maxUnverifiedPeers: config.maxUnverifiedPeers)
    }
}
// MARK: - Sessions

extension SessionManager {

    private func emit(_ event: ControlEvent, replayable: Bool = true) {
        control.broadcast(journal.record(event, replayable: replayable))
    }

    private func setState(_ state: ConnectionState, for peer: UUID, reason: CloseReason?, detail: String? = nil) {
        directory.setState(state, for: peer, reason: reason, detail: detail)
    }

    /// Dial order: IPv4 before IPv6 (no scope needed), the rest as listed.
    private func dialOrder(_ endpoints: [Endpoint]) -> [Endpoint] {
        endpoints.filter { $0.family == .ipv4 } + endpoints.filter { $0.family == .ipv6 }
    }

    /// Invites the peer, or reuses its session (`invite`).
    public func invite(_ peer: PeerSnapshot, context: [UInt8], timeout: TimeInterval) -> Result<InviteResult, ControlError> {
        if let existing = sessionByPeer[peer.id] {
            // The peer is inviting us at this moment: our invitation is our yes.
            if existing.role == .invitee {
                if existing.phase == .awaitingDecision { existing.decide(accept: true) } else { existing.autoAccept = true }
            }
            return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: true))
        }
        if awaitingCrossed[peer.id] != nil {
            return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: true))
        }
        guard !peer.endpoints.isEmpty else {
            return .failure(ControlError(.unreachable, "no address is known for '\(peer.name)' (\(peer.lost ? "it is lost" : "it has no endpoints"))"))
        }
        guard peer.peerId != identityKey.peerID else { return .failure(ControlError(.invalidParams, "that is this host")) }
        if let limit = dialLimit(peer.peerId) { return .failure(ControlError(.overloaded, "cannot invite '\(peer.name)': \(limit)")) }
        guard dial(peer.id, endpoints: dialOrder(peer.endpoints), expected: peer.peerId, context: context, timeout: timeout) else {
            return .failure(ControlError(.unreachable, "cannot connect to any address of '\(peer.name)'"))
        }
        return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: false))
    }

    /// The local limit a dial to the peer with `peerID` would pass, if any.
    private func dialLimit(_ peerID: String?) -> SessionLimit? {
        admission.admitDial(paired: isPaired(peerID), others: authenticatedSessions())
    }

    /// Starts a session to the first endpoint that accepts a connect attempt.
    @discardableResult
    private func dial(_ peer: UUID, endpoints: [Endpoint], expected: String?, context: [UInt8], timeout: TimeInterval, pairing: Bool = false) -> Bool {
        if let limit = dialLimit(expected) {
            logger.warning("\(limit); not dialling")
            return false
        }
        var rest = endpoints[...]
        while let endpoint = rest.popFirst() {
            do {
                let session = try PeerSession(number: nextSessionNumber, dialing: endpoint, remaining: Array(rest), expectedPeerID: expected,
                                              identity: identityKey, name: discovery.name, context: context, inviteTimeout: timeout,
                                              limits: sessionLimits, sendLimit: sessionSendLimit, pairing: pairing, delegate: self)
                nextSessionNumber += 1
                session.peerUUID = peer
                sessions[ObjectIdentifier(session)] = session
                sessionByPeer[peer] = session
                logger.debug("session \(session.number): dialling \(session.remoteAddress)")
                return true
            } catch {
                logger.info("cannot dial \(endpoint.hostPort): \(error)")
            }
        }
        return false
    }

    private func tick() {
        let now = Date()
        for session in Array(sessions.values) { session.tick(now: now) }
        control.tick(now: now)
        checkHold(now: now)
        for (peer, deadline) in awaitingCrossed where now >= deadline {
            awaitingCrossed[peer] = nil
            if sessionByPeer[peer] == nil { setState(.notConnected, for: peer, reason: .closedByPeer) }
        }
        reconnect.tick(now: now)
        for peer in Array(sessionByPeer.keys) { drainQueue(for: peer) }
        health.tick(now: now, status: serviceStatusLine())
    }

    // MARK: PeerSessionDelegate

    /// The remote proved its key.
    public func sessionAuthenticated(_ session: PeerSession, peerID: String) {
        if let mismatch = trustViolation(session, claimedName: nil) {
            refuse(session, mismatch: mismatch)
            return
        }
        if session.role == .inviter {
            if let peer = session.peerUUID, sessionByPeer[peer] === session { setState(.connecting, for: peer, reason: nil) }
            Task { [weak self] in
                guard let self else { return }
                await self.identity.markVerified(peerID: peerID)
                await self.discovery.refreshUnverified()
            }
            return
        }
        if peerID == identityKey.peerID {
            session.close("a connection from ourselves", reason: .protocolError)
            return
        }
        if let limit = admission.admitAuthenticated(paired: isPaired(peerID), address: session.remoteHost,
                                                    others: authenticatedSessions(except: session)) {
            if refusedAtSessionCap.record() {
                logger.warning("\(limit); refusing a session from \(peerID) at \(session.remoteAddress) (\(refusedAtSessionCap.count) refused so far)")
            }
            session.close(limit.description, reason: .closedLocally)
            return
        }
        Task { [weak self] in
            guard let self else { return }
            guard let adopted = await self.identity.adopt(peerID: peerID, name: PeerRegistry.placeholderName(for: .peerID(peerID)),
                                                          protected: self.protectedRows) else {
                if self.directory.recordRejected() {
                    self.logger.warning("peer cap (\(self.config.maxPeers)) reached and no row can be evicted; refusing a session from \(peerID) (\(self.directory.rejectedCount) turned away so far)")
                }
                session.close("this host's peer table is full (--max-peers \(self.config.maxPeers))", reason: .closedLocally)
                return
            }
            self.publish(adopted.changes)
            await self.discovery.refreshUnverified()
            self.adoptIncoming(session, as: adopted.snapshot.id, remotePeerID: peerID)
        }
    }

    /// Applies the crossing rule to an authenticated incoming session.
    ///
    /// Rule: between two peers, the connection dialled by the peer with the
    /// smaller peer id (byte-wise on the hex) is the session; the other is
    /// closed with the wire reason `duplicate`. The side whose own dial lost
    /// accepts the winner's invitation by itself: it asked for the session too.
    /// A dial of ours that has not authenticated within 1 s (a stale address,
    /// a dead port) does not count: real crossings complete in milliseconds,
    /// and a proven connection must not wait on a doubtful one.
    private func adoptIncoming(_ session: PeerSession, as peer: UUID, remotePeerID: String) {
        guard sessions[ObjectIdentifier(session)] != nil, !session.phase.isClosedPhase else { return }
        session.peerUUID = peer
        if let existing = sessionByPeer[peer], existing !== session {
            let ourDialIsLive = existing.isAuthenticated || Date().timeIntervalSince(existing.startedAt) < 1
            let ourDialWins = existing.role == .inviter && ourDialIsLive && identityKey.peerID < remotePeerID
            if existing.isConnected || existing.role == .invitee || ourDialWins {
                logger.debug("session \(session.number): duplicate of session \(existing.number) with \(remotePeerID); closing it")
                session.close("a session between these peers exists", reason: .duplicate)
                return
            }
            logger.debug("session \(session.number): crossing invitations; it replaces our dial (session \(existing.number))")
            sessionByPeer[peer] = session
            session.autoAccept = true
            existing.close("crossing invitations: the other connection wins", reason: .duplicate)
        } else if awaitingCrossed.removeValue(forKey: peer) != nil {
            session.autoAccept = true
            sessionByPeer[peer] = session
        } else {
            sessionByPeer[peer] = session
        }
        setState(.connecting, for: peer, reason: nil)
        if let pending = session.pendingDecision {
            session.pendingDecision = nil
            sessionNeedsDecision(session, name: pending.name, context: pending.context, timeoutSeconds: pending.timeout, pairing: pending.pairing)
        }
    }

    /// The invitee side must ask a client.
    public func sessionNeedsDecision(_ session: PeerSession, name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool) {
        guard let peer = session.peerUUID, sessionByPeer[peer] === session else {
            session.pendingDecision = (name, context, timeoutSeconds, pairing)
            return
        }
        if let mismatch = trustViolation(session, claimedName: name) {
            refuse(session, mismatch: mismatch)
            return
        }
        let paired = isPaired(session.remotePeerID)
        invitations.arrived(session, peer: peer, name: name, context: context, timeoutSeconds: timeoutSeconds,
                            facts: .init(wanted: session.autoAccept, policyAccepts: acceptsAutomatically(session), pairing: pairing,
                                         paired: paired, subscribers: control.subscriberCount),
                            now: Date())
    }

    /// Connected.
    public func sessionEstablished(_ session: PeerSession) {
        guard let peer = session.peerUUID, sessionByPeer[peer] === session else { return }
        invitations.settled(session)
        // A session opened to pair is not a connection clients can use: the
        // row stays `connecting` until the pairing ends it.
        if session.isForPairing {
            pairIfRequested(session)
            return
        }
        setState(.connected, for: peer, reason: nil)
        reconnect.connected(peer)
        rememberAddresses(of: peer)
        drainQueue(for: peer)
        pairIfRequested(session)
    }

    /// A message arrived: the clients taking messages get it, or the inbox
    /// keeps it; if neither can, the words for the session's `busy` close.
    public func session(_ session: PeerSession, delivered message: [UInt8]) -> String? {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return "the session has no proven peer" }
        if case .refused(let why) = inbox.arrived(message, from: peerID, now: Date()) {
            logger.warning("closing the session with '\(directory.row(peer)?.name ?? peerID)' as busy: \(why)")
            // Not dialled again for 30 s, or until a client takes messages
            // here (a disk that was full may have room again by itself).
            reconnect.refusedAsBusy(peer, now: Date())
            return "'\(discovery.name)': \(why)"
        }
        // A subscriber is behind: hold the flow back (this session stops
        // reading) until it catches up, rather than queue more or drop it.
        if control.subscriberBacklog > subscriberHoldMark {
            session.holdReading(true)
            if heldSince == nil { heldSince = Date() }
        }
        return nil
    }

    /// Past this many bytes queued for a subscriber, sessions delivering
    /// messages stop reading; below an eighth of `--subscriber-queue` they go on.
    private var subscriberHoldMark: Int { config.subscriberQueueBytes / 2 }

    /// Subscribers caught up: held sessions read again.
    private func releaseHeldSessions() {
        guard heldSince != nil, control.subscriberBacklog <= config.subscriberQueueBytes / 8 else { return }
        endHold()
    }

    /// A subscriber that has not caught up within 5 s of the hold is
    /// dropped, so one stuck client cannot stall every session for long.
    private func checkHold(now: Date) {
        guard let since = heldSince, now.timeIntervalSince(since) >= 5 else { return }
        control.dropSubscribers(behindBy: subscriberHoldMark, now: now)
        endHold()
    }

    private func endHold() {
        heldSince = nil
        for session in sessions.values where session.heldForClients { session.holdReading(false) }
    }

    /// The session ended.
    public func sessionFinished(_ session: PeerSession, reason: CloseReason, text: String) {
        sessions[ObjectIdentifier(session)] = nil
        // A session that queued much leaves free pages behind: hand them back.
        if session.peakQueuedBytes > 1 << 20 { malloc_trim(0) }
        invitations.settled(session)
        logger.debug("session \(session.number) with \(session.remoteAddress) ended: \(reason.rawValue): \(text)")
        if reason == .identityMismatch {
            let info = IdentityMismatchInfo(peer: session.peerUUID, expected: session.expectedPeerID ?? "", actual: session.remotePeerID ?? "",
                                            address: session.remoteAddress)
            logger.warning("identity mismatch at \(session.remoteAddress): advertised \(info.expected), proved \(info.actual)")
            emit(ControlEvent(seq: 0, type: .identityMismatch, time: Date(), peer: session.peerUUID.flatMap(directory.row), mismatch: info))
            // That endpoint is not the peer's: it leaves the row, and is not
            // merged again (nor reported again) while Avahi keeps the service.
            if let endpoint = session.endpoint, let peer = session.peerUUID {
                Task { [weak self] in
                    guard let self else { return }
                    self.publish(await self.identity.refuseEndpoint(endpoint, of: peer))
                }
            }
        }
        guard let peer = session.peerUUID, sessionByPeer[peer] === session else { return }
        sessionByPeer[peer] = nil
        if session.isAuthenticated { directory.sessionEnded(peer, at: Date()) }
        // Unacknowledged queued messages stay on disk for the next session.
        queued.sessionEnded(peer)
        if reason == .duplicate {
            // The other side's dial wins the crossing rule; its connection comes.
            awaitingCrossed[peer] = Date().addingTimeInterval(sessionLimits.handshakeTimeout * 2)
            return
        }
        if session.role == .inviter && !session.isAuthenticated {
            // Not yet the peer: try its next address, or give up without a
            // state change (a spoofed or dead endpoint says nothing about it).
            // A dial we closed ourselves (unpair, shutdown) is not retried.
            if reason == .handshakeFailed || reason == .identityMismatch, !session.remainingEndpoints.isEmpty,
               dial(peer, endpoints: session.remainingEndpoints, expected: session.expectedPeerID,
                    context: session.inviteContext, timeout: session.inviteTimeout, pairing: session.isForPairing) {
                return
            }
            logger.notice("invitation to \(peer.uuidString.lowercased()) failed: \(reason.rawValue): \(text)")
            emit(ControlEvent(seq: 0, type: .inviteFailed, time: Date(), peer: directory.row(peer), reason: reason, detail: text))
            return
        }
        if reason == .busy, !reconnect.wasRefusedAsBusy(peer) {
            // The peer's inbox is full: its queue waits here, and it is not
            // dialled for 30 s (it dials us once a client takes messages).
            logger.notice("'\(directory.row(peer)?.name ?? "peer")' is busy: \(text); its queued messages wait")
            if let peerID = session.remotePeerID { queued.peerBusy(peerID, text) }
            reconnect.peerWasBusy(peer, now: Date())
        }
        setState(.notConnected, for: peer, reason: reason, detail: text)
    }
}

private extension SessionPhase {
    var isClosedPhase: Bool { if case .closed = self { return true } else { return false } }
}

// MARK: - Pairing and trust

extension SessionManager {
    private func refresh(_ peer: UUID) {
        directory.refresh(peer)
    }

    /// Starts pairing with the peer, dialling it if need be (`pair`).
    public func pair(with peer: PeerSnapshot) -> Result<PeerSnapshot, ControlError> {
        if let session = sessionByPeer[peer.id] {
            pairing.pair(on: session, peer: peer.id)
            return .success(directory.row(peer.id) ?? peer)
        }
        guard !peer.endpoints.isEmpty else {
            return .failure(ControlError(.unreachable, "no address is known for '\(peer.name)'"))
        }
        if let limit = dialLimit(peer.peerId) { return .failure(ControlError(.overloaded, "cannot pair with '\(peer.name)': \(limit)")) }
        guard dial(peer.id, endpoints: dialOrder(peer.endpoints), expected: peer.peerId, context: [], timeout: config.pairingTimeout, pairing: true) else {
            return .failure(ControlError(.unreachable, "cannot connect to any address of '\(peer.name)'"))
        }
        if let session = sessionByPeer[peer.id] { pairing.pair(on: session, peer: peer.id) }
        return .success(directory.row(peer.id) ?? peer)
    }

    /// Removes the trust here and tells the peer (`unpair`).
    public func unpair(_ peer: PeerSnapshot) -> Result<PeerSnapshot, ControlError> {
        if case .failure(let error) = pairing.unpair(peer) { return .failure(error) }
        if let session = sessionByPeer[peer.id] {
            session.sendUnpair()
            session.close("unpaired")
        }
        return .success(directory.row(peer.id) ?? peer)
    }

    /// Whether an invitation from this session is accepted without a client.
    func acceptsAutomatically(_ session: PeerSession) -> Bool {
        pairing.acceptsAutomatically(session.remotePeerID)
    }

    /// A paired peer's key or name claimed by another, if so.
    func trustViolation(_ session: PeerSession, claimedName: String?) -> IdentityMismatchInfo? {
        pairing.violation(by: session, claimedName: claimedName)
    }

    func refuse(_ session: PeerSession, mismatch: IdentityMismatchInfo) {
        logger.warning("refusing \(session.remoteAddress): it claims a paired peer's identity (expected \(mismatch.expected), got \(mismatch.actual))")
        emit(ControlEvent(seq: 0, type: .identityMismatch, time: Date(), peer: mismatch.peer.flatMap(directory.row), mismatch: mismatch))
        session.close("identity does not match the paired peer", reason: .closedLocally)
    }

    /// Starts pairing on a session that was opened for it, once connected.
    func pairIfRequested(_ session: PeerSession) {
        pairing.connected(session)
    }

    /// Hands queued messages to a connected peer's session, oldest first,
    /// as far as its send queue takes them; the rest wait for the next tick.
    public func drainQueue(for peer: UUID) {
        guard let session = sessionByPeer[peer] else { return }
        queued.drain(to: session, peer: peer, name: directory.row(peer)?.name ?? session.remotePeerID ?? "peer")
    }

    /// The peer acknowledged messages: clients hear it (`delivered`), and
    /// queued ones it has are off the disk.
    public func session(_ session: PeerSession, acknowledged count: UInt64) {
        if let peer = session.peerUUID, count > 0 {
            emit(ControlEvent(seq: 0, type: .delivered, time: Date(), peer: directory.row(peer), delivery: DeliveryInfo(session: session.number, through: count)),
                 replayable: false)
        }
        guard let peer = session.peerUUID, sessionByPeer[peer] === session, let peerID = session.remotePeerID else { return }
        queued.acknowledged(count, peer: peer, peerID: peerID)
    }

    /// Keeps a paired peer's current addresses in the trust store.
    /// Only endpoints at the address of the live, authenticated session are
    /// kept: an address someone merely advertised for the peer proves nothing.
    func rememberAddresses(of peer: UUID) {
        guard let row = directory.row(peer), let session = sessionByPeer[peer] else { return }
        pairing.rememberAddresses(of: row, session: session)
    }

    /// The peer asks to pair.
    public func sessionPairingRequested(_ session: PeerSession) {
        pairing.requested(on: session, now: Date())
    }

    /// A pairing step.
    public func session(_ session: PeerSession, pairing action: PairingAction) {
        pairing.perform(action, on: session, now: Date())
    }

    /// The peer removed its trust in us: remove ours.
    public func sessionUnpaired(_ session: PeerSession) {
        pairing.unpairedByPeer(session)
    }
}
