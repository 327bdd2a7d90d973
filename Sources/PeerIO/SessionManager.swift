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
public final class SessionManager: ControlRequestHandler, PeerSessionDelegate {
    private let config: DaemonConfiguration
    private let logger: Logger
    private let identityKey: IdentityKey
    private let identity: IdentityActor
    private let control: ControlServer
    private let sessionListener: TCPListener
    private let discovery: DiscoveryCoordinator
    private var journal: EventJournal
    private var peerOrder: [UUID] = []
    private var peerTable: [UUID: PeerSnapshot] = [:]
    private var peersRejected = RefusalCounter()
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
    private var peerStates: [UUID: ConnectionState] = [:]
    private var invitations: [String: PeerSession] = [:]
    private var invitationInfo: [String: InvitationInfo] = [:]
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

    // Pairing and trust.
    private var trust: TrustStore
    private var throttle = PairingThrottle()
    private var pairings: [String: PeerSession] = [:]
    private var pairingInfo: [String: PairingInfo] = [:]
    private var pairWhenConnected: Set<UUID> = []
    private var reconnect = ReconnectSchedule()
    private var netlink: NetlinkMonitor?
    private var linkStates: LinkStateTracker
    private var networkRetryPending = false
    private let health = ServiceHealth()
    private var refusedHandshakes = RefusalCounter()
    private lazy var connectionLimiter = RateLimiter<String>(perSecond: Double(config.connectionRate), burst: Double(config.connectionRate * 2))
    private lazy var invitationLimiter = RateLimiter<Int>(perSecond: Double(config.invitationRate) / 60, burst: Double(config.invitationRate))
    private var refusedByRate = RefusalCounter()
    private var refusedAtSessionCap = RefusalCounter()
    private let queued: QueuedDelivery
    /// Messages no client takes wait here (see ``InboxDelivery``).
    private lazy var inbox = InboxDelivery(
        stateDirectory: config.stateDirectory, limit: config.inboxBytes, budget: config.subscriberQueueBytes / 2,
        control: control, logger: logger,
        lookUp: { [unowned self] peerID in self.sender(peerID) },
        number: { [unowned self] event in self.journal.record(event, replayable: false) })
    /// Peers this host closed as `busy` (its inbox was full): dialled again
    /// once a client takes messages, or after 30 s.
    private var refusedForInbox: Set<UUID> = []
    /// When each peer's last session ended (what a row without endpoints
    /// shows as last seen).
    private var sessionEnded: [UUID: Date] = [:]

    /// Every row as clients see it, in first-seen order.
    private var peers: [PeerSnapshot] { peerOrder.compactMap { peerTable[$0].map(presence) } }

    /// Rows the identity actor may not evict: paired peers, and peers with a session.
    private var protectedRows: Set<UUID> {
        Set(trust.document.peers.map(\.uuid)).union(sessions.values.compactMap(\.peerUUID))
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

    private func isPaired(_ peerID: String?) -> Bool { peerID.map { trust.record(peerID: $0) != nil } ?? false }

    /// Addresses known peers use: every row's endpoints and paired peers' last addresses.
    private var knownAddresses: Set<String> {
        Set(peerTable.values.flatMap { $0.endpoints.map(\.address) } + trust.document.peers.flatMap { ($0.addresses ?? []).map(\.address) })
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
        trust = opened.store
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
        linkStates = LinkStateTracker(watched: Set(interfaceIndexes))
        journal = EventJournal(capacity: config.eventHistory)
        if let portNote { logger.notice(portNote) }
        if loaded.created {
            logger.notice("generated a new identity key in \(config.stateDirectory)/\(IdentityKey.fileName)")
        }
    }

    /// Starts serving: control clients, the session port, and Avahi.
    public func start() {
        control.handler = self
        control.onSubscriberDrained = { [weak self] in self?.releaseHeldSessions() }
        control.onClientWrote = { [weak self] connection in self?.inbox.written(connection) }
        control.onClientClosed = { [weak self] connection in self?.inbox.closed(connection) }
        inbox.onRoom = { [weak self] in self?.inboxHasRoom() }
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
        // A link coming back ends a partition sooner than any backoff would.
        do {
            netlink = try NetlinkMonitor { [weak self] changes in self?.networkChanged(changes) }
        } catch {
            logger.notice("not watching links and addresses (\(error)); paired peers are retried at their backoff only")
        }
        // Rows for paired peers exist from the start, under their stored UUIDs.
        Task { [weak self] in
            guard let self else { return }
            for row in await self.identity.snapshots() where self.peerTable[row.id] == nil {
                self.peerOrder.append(row.id)
                self.peerTable[row.id] = self.decorate(row)
            }
        }
        logger.info("peerd \(PeerdVersion.string) starting: peer id \(identityKey.peerID), name '\(config.name)', type \(config.serviceType), session port \(sessionListener.port)\(sessionListener.dualStack ? " (IPv4+IPv6)" : " (IPv4)"), control socket \(control.path)")
        discovery.onChanges = { [weak self] changes in self?.publish(changes) }
        discovery.protectedRows = { [weak self] in self?.protectedRows ?? [] }
        discovery.start()
        health.ready(status: serviceStatusLine(), now: Date())
    }

    /// The one-line status systemd shows (`systemctl status peerd`).
    private func serviceStatusLine() -> String {
        let peers = peers
        let connected = peerStates.values.filter { $0 == .connected }.count
        return "'\(discovery.name)' \(discovery.publication.rawValue); avahi \(discovery.avahiStatus.rawValue); \(peers.filter { !$0.lost }.count) peers present, \(connected) connected"
    }

    /// Withdraws the service, frees Avahi, closes the sockets and removes the
    /// control socket. Idempotent.
    public func shutdown() {
        guard !stopped else { return }
        stopped = true
        health.stopping()
        tickTimer?.cancel()
        netlink?.stop()
        for session in sessions.values { session.close("peerd is stopping") }
        discovery.shutdown()
        sessionAcceptSource?.cancel()
        sessionListener.close()
        control.stop(time: Date())
        logger.info("stopped")
    }

    /// Records the identity actor's changes, logs them, and sends them to subscribers.
    private func publish(_ changes: [PeerChange]) {
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
                peerTable[snapshot.id] = nil
                peerOrder.removeAll { $0 == snapshot.id }
                control.broadcast(journal.append(.peerRemoved, peer: snapshot, time: Date()))
                continue
            case .rejectedAtCap(let key, let unverifiedCap):
                if peersRejected.record() {
                    let cap = unverifiedCap ? "unverified-peer cap (\(config.maxUnverifiedPeers) peers known from mDNS alone)" : "peer cap (\(config.maxPeers))"
                    logger.warning("\(cap) reached; not tracking \(key) (\(peersRejected.count) turned away so far)")
                }
                continue
            }
            let row = decorate(peer)
            if peerTable[row.id] == nil { peerOrder.append(row.id) }
            peerTable[row.id] = row
            control.broadcast(journal.append(kind, peer: row, time: Date()))
            if kind == .peerFound { autoConnectIfPaired(row) }
            if row.paired && row.state == .connected { rememberAddresses(of: row.id) }
        }
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

    // MARK: Control requests

    /// Answers one request.
    public func handle(_ method: ControlMethod, params: ControlParams, id: RequestID, connection: ControlConnection) {
        switch method {
        case .status:
            reply(connection, id: id, result: status())
        case .peers:
            reply(connection, id: id, result: PeersResult(peers: peers))
        case .peer:
            guard let selector = params.peer else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'peer' needs params.peer: a UUID, a unique UUID prefix or a unique name"))
                return
            }
            switch PeerSelector.select(selector, from: peers) {
            case .success(let peer): reply(connection, id: id, result: PeerResult(peer: peer))
            case .failure(let error): reply(connection, id: id, error: error)
            }
        case .invite, .disconnect, .send:
            guard let selector = params.peer else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'\(method.rawValue)' needs params.peer"))
                return
            }
            let peer: PeerSnapshot
            switch PeerSelector.select(selector, from: peers) {
            case .success(let found): peer = found
            case .failure(let error):
                reply(connection, id: id, error: error)
                return
            }
            handleSessionRequest(method, peer: peer, params: params, id: id, connection: connection)
        case .pair, .unpair:
            guard let selector = params.peer else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'\(method.rawValue)' needs params.peer"))
                return
            }
            switch PeerSelector.select(selector, from: peers) {
            case .success(let peer):
                let outcome = method == .pair ? pair(with: peer) : unpair(peer)
                switch outcome {
                case .success(let row): reply(connection, id: id, result: PeerResult(peer: row))
                case .failure(let error): reply(connection, id: id, error: error)
                }
            case .failure(let error):
                reply(connection, id: id, error: error)
            }
        case .pairAccept, .pairReject:
            guard let key = params.pairing?.lowercased(), !key.isEmpty else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'\(method.rawValue)' needs params.pairing"))
                return
            }
            let matches = pairings.keys.filter { $0.hasPrefix(key) }
            guard matches.count == 1, let session = pairings[matches[0]], let info = pairingInfo[matches[0]] else {
                reply(connection, id: id, error: ControlError(matches.count > 1 ? .ambiguous : .notFound,
                                                              matches.count > 1 ? "'\(key)' matches \(matches.count) pairings" : "no pairing '\(key)' in progress (it may have timed out)"))
                return
            }
            if method == .pairReject {
                session.rejectPairing()
                reply(connection, id: id, result: info)
                return
            }
            guard !info.initiator, case .awaitingUser? = session.pairing?.step else {
                reply(connection, id: id, error: ControlError(.invalidParams, "this host started that pairing; the code is confirmed on the other host"))
                return
            }
            guard let code = params.code, PairingCode.isWellFormed(code) else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'pairAccept' needs params.code: the 6 digits shown on '\(info.name)'"))
                return
            }
            session.pairingCodeEntered(code)
            if session.pairing?.step == .paired, let peer = peerTable[info.peer], peer.paired {
                reply(connection, id: id, result: PeerResult(peer: peer))
            } else if session.pairing?.step == .failed(.storageFailed) {
                reply(connection, id: id, error: ControlError(.storageFailed, "the codes matched, but the trust store could not be written (see the log); the pairing was rejected on both hosts"))
            } else {
                reply(connection, id: id, error: ControlError(.wrongCode, "the code does not match the one shown on '\(info.name)'; the pairing failed"))
            }
        case .queue:
            let list = queued.list { peerID in trust.record(peerID: peerID).map { ($0.uuid, $0.name) } }
            reply(connection, id: id, result: QueueResult(queues: list))
        case .pairings:
            reply(connection, id: id, result: PairingsResult(pairings: pairingInfo.values.sorted { $0.expires < $1.expires }))
        case .paired:
            reply(connection, id: id, result: TrustListResult(peers: trust.document.peers.sorted { $0.pairedAt < $1.pairedAt }))
        case .invitations:
            let pending = invitationInfo.values.sorted { $0.expires < $1.expires }
            reply(connection, id: id, result: InvitationsResult(invitations: pending))
        case .accept, .decline:
            guard let key = params.invitation?.lowercased(), !key.isEmpty else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'\(method.rawValue)' needs params.invitation"))
                return
            }
            let matches = invitations.keys.filter { $0.hasPrefix(key) }
            guard matches.count == 1, let session = invitations[matches[0]], let info = invitationInfo[matches[0]] else {
                let code: ControlErrorCode = matches.count > 1 ? .ambiguous : .notFound
                reply(connection, id: id, error: ControlError(code, matches.count > 1 ? "'\(key)' matches \(matches.count) invitations" : "no pending invitation '\(key)' (it may have timed out)"))
                return
            }
            session.decide(accept: method == .accept)
            reply(connection, id: id, result: info)
        case .subscribe:
            // Reply and replay happen in one main-actor turn, so no live
            // event can slip between them or be sent twice.
            let since = params.since ?? journal.lastSeq
            let replay = journal.events(after: since)
            reply(connection, id: id, result: SubscribeResult(seq: journal.lastSeq, replayed: replay.events.count, truncated: replay.truncated))
            connection.isSubscriber = true
            for event in replay.events {
                guard let line = try? JSONLines.encode(EventLine(event)), connection.send(line) else { break }
            }
            if params.take == true {
                switch senderID(params.peer) {
                case .success(let from): inbox.addTaker(connection, from: from, count: params.count)
                case .failure(let error): connection.drop(finalLine: (try? JSONLines.encode(EventLine(ControlEvent(seq: 0, type: .error, time: Date(), error: error)))) ?? [])
                }
            }
        case .inbox:
            switch senderID(params.peer) {
            case .success(let from): reply(connection, id: id, result: inbox.list(from: from, max: min(params.max ?? 1000, 10_000)))
            case .failure(let error): reply(connection, id: id, error: error)
            }
        case .take:
            switch senderID(params.peer) {
            case .success(let from):
                do {
                    let taken = try inbox.take(from: from, max: min(params.max ?? 100, 10_000))
                    reply(connection, id: id, result: taken.result)
                    inbox.answered(connection, ids: taken.ids)
                } catch {
                    reply(connection, id: id, error: ControlError(.storageFailed, "cannot read the inbox: \(error)"))
                }
            case .failure(let error): reply(connection, id: id, error: error)
            }
        }
    }

    /// The peer id a `peer` parameter names for the inbox: a row's (by
    /// UUID, prefix or name), or a 32-digit peer id as it is (a sender of
    /// stored messages may have no row now). nil for every sender.
    private func senderID(_ selector: String?) -> Result<String?, ControlError> {
        guard let selector else { return .success(nil) }
        if selector.utf8.count == 32, selector.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) { return .success(selector) }
        switch PeerSelector.select(selector, from: peers) {
        case .success(let row):
            guard let peerID = row.peerId else { return .failure(ControlError(.invalidParams, "'\(row.name)' advertises no peer id, so it cannot send messages")) }
            return .success(peerID)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// Who sent a stored or arriving message, as clients see it.
    private func sender(_ peerID: String) -> InboxDelivery.Sender {
        if let record = trust.record(peerID: peerID) { return .init(uuid: record.uuid, name: record.name, paired: true) }
        let row = peerTable.values.first { $0.peerId == peerID }
        return .init(uuid: row?.id, name: row?.name, paired: false)
    }

    /// A client took messages: peers this host refused as busy may come again.
    private func inboxHasRoom() {
        guard !refusedForInbox.isEmpty else { return }
        for peer in refusedForInbox { reconnect.resume(peer) }
        refusedForInbox.removeAll()
    }

    private func handleSessionRequest(_ method: ControlMethod, peer: PeerSnapshot, params: ControlParams, id: RequestID, connection: ControlConnection) {
        switch method {
        case .invite:
            let context = Array((params.context ?? "").utf8)
            guard context.count <= WireCodec.maxContext else {
                reply(connection, id: id, error: ControlError(.invalidParams, "context is \(context.count) bytes; at most \(WireCodec.maxContext)"))
                return
            }
            let timeout = params.timeout ?? 30
            guard timeout >= 1, timeout <= 300 else {
                reply(connection, id: id, error: ControlError(.invalidParams, "timeout must be 1 to 300 seconds"))
                return
            }
            switch invite(peer, context: context, timeout: timeout) {
            case .success(let result): reply(connection, id: id, result: result)
            case .failure(let error): reply(connection, id: id, error: error)
            }
        case .disconnect:
            guard let session = sessionByPeer[peer.id] else {
                reply(connection, id: id, error: ControlError(.notConnected, "no session with '\(peer.name)'"))
                return
            }
            session.close("closed by a local client")
            reply(connection, id: id, result: PeerResult(peer: peerTable[peer.id] ?? peer))
        default:
            guard let text = params.data, let data = Data(base64Encoded: text) else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'send' needs params.data: the message in base64"))
                return
            }
            guard data.count <= config.maxMessage else {
                reply(connection, id: id, error: ControlError(.invalidParams, "the message is \(data.count) bytes; the limit is \(config.maxMessage)"))
                return
            }
            if params.queue == true, let peerID = peer.peerId, trust.record(peerID: peerID) != nil {
                // Stored durably first, connected or not: it leaves the disk
                // only when the peer acknowledges it.
                if case .failure(let error) = queued.enqueue(Array(data), for: peerID, name: peer.name) {
                    reply(connection, id: id, error: error)
                    return
                }
                drainQueue(for: peer.id)
                reply(connection, id: id, result: SendResult(bytes: data.count, queued: true))
                return
            }
            guard let session = sessionByPeer[peer.id], session.isConnected else {
                let hint = params.queue == true ? "'\(peer.name)' is not paired, so nothing can be queued for it" : "invite it first, or use --queue for a paired peer"
                reply(connection, id: id, error: ControlError(.notConnected, "'\(peer.name)' is not connected; \(hint)"))
                return
            }
            guard let number = session.send(Array(data)) else {
                reply(connection, id: id, error: ControlError(.busy, "the send queue to '\(peer.name)' is full (\(session.queuedBytes) bytes); retry shortly"))
                return
            }
            // OK means: queued on this session, in order. A `delivered`
            // event says when the peer's daemon has it.
            reply(connection, id: id, result: SendResult(bytes: data.count, session: session.number, number: number))
        }
    }

    private func status() -> DaemonStatus {
        let peers = peers
        return DaemonStatus(
            version: PeerdVersion.string, pid: getpid(), uptime: Int(Date().timeIntervalSince(startedAt)),
            peerId: identityKey.peerID, requestedName: discovery.requestedName, name: discovery.name,
            serviceType: config.serviceType, port: sessionListener.port, interfaces: config.interfaces,
            avahi: discovery.avahiStatus, avahiMessage: discovery.statusMessage, publication: discovery.publication,
            peers: peers.count, lostPeers: peers.filter(\.lost).count, maxPeers: config.maxPeers,
            peersRejected: peersRejected.count, eventSeq: journal.lastSeq, socket: control.path,
            sessions: sessions.count, subscribers: control.subscriberCount,
            unverifiedPeers: discovery.unverifiedPeers, maxUnverifiedPeers: config.maxUnverifiedPeers)
    }

    private func reply(_ connection: ControlConnection, id: RequestID, result: some Codable & Sendable) {
        do {
            deliver(try JSONLines.encode(ControlResponse(id: id, result: result)), to: connection, id: id)
        } catch {
            reply(connection, id: id, error: ControlError(.internal, "cannot encode the result: \(error)"))
        }
    }

    private func reply(_ connection: ControlConnection, id: RequestID, error: ControlError) {
        if let line = try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: error)) { deliver(line, to: connection, id: id) }
    }

    /// A client that sends requests but does not read the answers fills its
    /// queue; it is dropped with a last error rather than buffered for.
    private func deliver(_ line: [UInt8], to connection: ControlConnection, id: RequestID) {
        // A connection already on its way out is not overloaded: say nothing.
        guard !connection.send(line), !connection.isClosing else { return }
        logger.warning("control client \(connection.number) is not reading its responses; dropping it")
        let error = ControlError(.overloaded, "too many unread responses; read them before sending more requests")
        if let final = try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: error)) { connection.drop(finalLine: final) }
    }
}

// MARK: - Sessions

extension SessionManager {

    private func emit(_ event: ControlEvent, replayable: Bool = true) {
        control.broadcast(journal.record(event, replayable: replayable))
    }

    private func setState(_ state: ConnectionState, for peer: UUID, reason: CloseReason?, detail: String? = nil) {
        guard (peerStates[peer] ?? .notConnected) != state else { return }
        peerStates[peer] = state == .notConnected ? nil : state
        guard var row = peerTable[peer] else { return }
        row.state = state
        peerTable[peer] = row
        logger.info("peer '\(row.name)' \(peer.uuidString.lowercased()): \(state.rawValue)\(reason.map { " (\($0.rawValue))" } ?? "")")
        emit(ControlEvent(seq: 0, type: .stateChanged, time: Date(), peer: row, reason: reason, detail: detail))
    }

    /// Dial order: IPv4 before IPv6 (no scope needed), the rest as listed.
    private func dialOrder(_ endpoints: [Endpoint]) -> [Endpoint] {
        endpoints.filter { $0.family == .ipv4 } + endpoints.filter { $0.family == .ipv6 }
    }

    private func invite(_ peer: PeerSnapshot, context: [UInt8], timeout: TimeInterval) -> Result<InviteResult, ControlError> {
        if let existing = sessionByPeer[peer.id] {
            // The peer is inviting us at this moment: our invitation is our yes.
            if existing.role == .invitee {
                if existing.phase == .awaitingDecision { existing.decide(accept: true) } else { existing.autoAccept = true }
            }
            return .success(InviteResult(peer: peerTable[peer.id] ?? peer, existing: true))
        }
        if awaitingCrossed[peer.id] != nil {
            return .success(InviteResult(peer: peerTable[peer.id] ?? peer, existing: true))
        }
        guard !peer.endpoints.isEmpty else {
            return .failure(ControlError(.unreachable, "no address is known for '\(peer.name)' (\(peer.lost ? "it is lost" : "it has no endpoints"))"))
        }
        guard peer.peerId != identityKey.peerID else { return .failure(ControlError(.invalidParams, "that is this host")) }
        if let limit = dialLimit(peer.peerId) { return .failure(ControlError(.overloaded, "cannot invite '\(peer.name)': \(limit)")) }
        guard dial(peer.id, endpoints: dialOrder(peer.endpoints), expected: peer.peerId, context: context, timeout: timeout) else {
            return .failure(ControlError(.unreachable, "cannot connect to any address of '\(peer.name)'"))
        }
        return .success(InviteResult(peer: peerTable[peer.id] ?? peer, existing: false))
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
        reconnectPairedPeers(now: now)
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
                if self.peersRejected.record() {
                    self.logger.warning("peer cap (\(self.config.maxPeers)) reached and no row can be evicted; refusing a session from \(peerID) (\(self.peersRejected.count) turned away so far)")
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
        if session.autoAccept || (!pairing && acceptsAutomatically(session)) {
            session.decide(accept: true)
            return
        }
        // Every invitation from an unpaired peer counts toward the rate,
        // pairing ones too: a stranger cannot open sessions faster that way.
        let paired = session.remotePeerID.map { trust.record(peerID: $0) != nil } ?? false
        guard paired || invitationLimiter.allow(0, now: Date()) else {
            logger.warning("more than \(config.invitationRate) invitations from unpaired peers this minute; declining one from '\(name)'")
            session.declineAutomatically("too many invitations; try again later")
            return
        }
        // A session to pair is accepted by itself: the person decides by the
        // code. It carries nothing but the pairing (SessionLifecycle), must
        // see a pairing request within seconds, and ends with the pairing.
        if pairing {
            session.decide(accept: true)
            return
        }
        guard control.subscriberCount > 0 else {
            logger.notice("declining an invitation from '\(name)': no client is subscribed to decide")
            session.declineAutomatically("no client is subscribed on the invitee to decide")
            return
        }
        let id = UUID().uuidString.lowercased()
        let info = InvitationInfo(id: id, peer: peer, name: name, peerId: session.remotePeerID ?? "",
                                  context: String(decoding: context, as: UTF8.self),
                                  expires: Date().addingTimeInterval(TimeInterval(timeoutSeconds)))
        session.invitationID = id
        invitations[id] = session
        invitationInfo[id] = info
        if var row = peerTable[peer], row.name.hasPrefix("peer-"), !name.isEmpty {
            row.name = name
            peerTable[peer] = row
        }
        logger.info("invitation \(id) from '\(name)' (\(peer.uuidString.lowercased()))")
        emit(ControlEvent(seq: 0, type: .invitation, time: Date(), peer: peerTable[peer], invitation: info))
    }

    /// Connected.
    public func sessionEstablished(_ session: PeerSession) {
        guard let peer = session.peerUUID, sessionByPeer[peer] === session else { return }
        if let id = session.invitationID {
            invitations[id] = nil
            invitationInfo[id] = nil
        }
        // A session opened to pair is not a connection clients can use: the
        // row stays `connecting` until the pairing ends it.
        if session.isForPairing {
            pairIfRequested(session)
            return
        }
        setState(.connected, for: peer, reason: nil)
        reconnect.succeeded(peer)
        rememberAddresses(of: peer)
        drainQueue(for: peer)
        pairIfRequested(session)
    }

    /// A message arrived: the clients taking messages get it, or the inbox
    /// keeps it; if neither can, the words for the session's `busy` close.
    public func session(_ session: PeerSession, delivered message: [UInt8]) -> String? {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return "the session has no proven peer" }
        if case .refused(let why) = inbox.arrived(message, from: peerID, now: Date()) {
            logger.warning("closing the session with '\(peerTable[peer]?.name ?? peerID)' as busy: \(why)")
            // Not dialled again for 30 s, or until a client takes messages
            // here (a disk that was full may have room again by itself).
            refusedForInbox.insert(peer)
            reconnect.pause(peer, until: Date().addingTimeInterval(30))
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
        if let id = session.invitationID {
            invitations[id] = nil
            invitationInfo[id] = nil
        }
        logger.debug("session \(session.number) with \(session.remoteAddress) ended: \(reason.rawValue): \(text)")
        if reason == .identityMismatch {
            let info = IdentityMismatchInfo(peer: session.peerUUID, expected: session.expectedPeerID ?? "", actual: session.remotePeerID ?? "",
                                            address: session.remoteAddress)
            logger.warning("identity mismatch at \(session.remoteAddress): advertised \(info.expected), proved \(info.actual)")
            emit(ControlEvent(seq: 0, type: .identityMismatch, time: Date(), peer: session.peerUUID.flatMap { peerTable[$0] }, mismatch: info))
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
        if session.isAuthenticated { sessionEnded[peer] = Date() }
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
            emit(ControlEvent(seq: 0, type: .inviteFailed, time: Date(), peer: peerTable[peer], reason: reason, detail: text))
            return
        }
        if reason == .busy, !refusedForInbox.contains(peer) {
            // The peer's inbox is full: its queue waits here, and it is not
            // dialled for 30 s (it dials us once a client takes messages).
            logger.notice("'\(peerTable[peer]?.name ?? "peer")' is busy: \(text); its queued messages wait")
            if let peerID = session.remotePeerID { queued.peerBusy(peerID, text) }
            reconnect.pause(peer, until: Date().addingTimeInterval(30))
        }
        setState(.notConnected, for: peer, reason: reason, detail: text)
    }
}

private extension SessionPhase {
    var isClosedPhase: Bool { if case .closed = self { return true } else { return false } }
}

// MARK: - Pairing and trust

extension SessionManager {
    /// A row as clients see it: the main actor's session state and trust.
    private func decorate(_ peer: PeerSnapshot) -> PeerSnapshot {
        var row = peer
        // Session state is the main actor's to say; the registry's copy may lag.
        row.state = peerStates[peer.id] ?? .notConnected
        row.paired = peer.peerId.map { trust.record(peerID: $0) != nil } ?? false
        return presence(row)
    }

    /// A row's presence as of now: a row known only through its session is
    /// present while the session lives (see ``SessionPresence``).
    private func presence(_ row: PeerSnapshot) -> PeerSnapshot {
        let live = sessionByPeer[row.id].flatMap { $0.isAuthenticated && !$0.phase.isClosedPhase ? TCPConnector.plainHost($0.remoteHost) : nil }
        return SessionPresence.apply(to: row, sessionAddress: live, lastSessionEnd: sessionEnded[row.id], now: Date())
    }

    private func refresh(_ peer: UUID) {
        guard let row = peerTable[peer] else { return }
        peerTable[peer] = decorate(row)
    }

    private func pair(with peer: PeerSnapshot) -> Result<PeerSnapshot, ControlError> {
        if let session = sessionByPeer[peer.id], session.canCarryPairing {
            session.startPairing(nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: config.pairingTimeout)
            return .success(peerTable[peer.id] ?? peer)
        }
        if sessionByPeer[peer.id] != nil {
            pairWhenConnected.insert(peer.id)
            return .success(peerTable[peer.id] ?? peer)
        }
        guard !peer.endpoints.isEmpty else {
            return .failure(ControlError(.unreachable, "no address is known for '\(peer.name)'"))
        }
        if let limit = dialLimit(peer.peerId) { return .failure(ControlError(.overloaded, "cannot pair with '\(peer.name)': \(limit)")) }
        guard dial(peer.id, endpoints: dialOrder(peer.endpoints), expected: peer.peerId, context: [], timeout: config.pairingTimeout, pairing: true) else {
            return .failure(ControlError(.unreachable, "cannot connect to any address of '\(peer.name)'"))
        }
        pairWhenConnected.insert(peer.id)
        return .success(peerTable[peer.id] ?? peer)
    }

    private func unpair(_ peer: PeerSnapshot) -> Result<PeerSnapshot, ControlError> {
        guard let peerID = peer.peerId, trust.record(peerID: peerID) != nil else {
            return .failure(ControlError(.notFound, "'\(peer.name)' is not paired"))
        }
        do { try trust.remove(peerID: peerID) } catch {
            return .failure(ControlError(.storageFailed, "cannot write the trust store: \(error)"))
        }
        queued.discard(peerID, peer: peer.id)
        if let session = sessionByPeer[peer.id] {
            session.sendUnpair()
            session.close("unpaired")
        }
        refresh(peer.id)
        logger.notice("unpaired '\(peer.name)' (\(peerID))")
        emit(ControlEvent(seq: 0, type: .unpaired, time: Date(), peer: peerTable[peer.id]))
        return .success(peerTable[peer.id] ?? peer)
    }

    /// Whether an invitation from this session is accepted without a client.
    func acceptsAutomatically(_ session: PeerSession) -> Bool {
        switch config.autoAccept {
        case .all: return true
        case .none: return false
        case .paired: return session.remotePeerID.map { trust.record(peerID: $0) != nil } ?? false
        }
    }

    /// A trusted id must come with its trusted key, and a trusted name must
    /// not come with another id. Returns the mismatch, if any.
    func trustViolation(_ session: PeerSession, claimedName: String?) -> IdentityMismatchInfo? {
        guard let peerID = session.remotePeerID, let key = session.remoteStaticKey else { return nil }
        if let record = trust.record(peerID: peerID), record.publicKey != Hex.encode(key) {
            return IdentityMismatchInfo(peer: record.uuid, expected: record.publicKey, actual: Hex.encode(key), address: session.remoteAddress)
        }
        if let claimedName, let record = trust.record(named: claimedName), record.peerId != peerID {
            return IdentityMismatchInfo(peer: record.uuid, expected: record.peerId, actual: peerID, address: session.remoteAddress)
        }
        return nil
    }

    func refuse(_ session: PeerSession, mismatch: IdentityMismatchInfo) {
        logger.warning("refusing \(session.remoteAddress): it claims a paired peer's identity (expected \(mismatch.expected), got \(mismatch.actual))")
        emit(ControlEvent(seq: 0, type: .identityMismatch, time: Date(), peer: mismatch.peer.flatMap { peerTable[$0] }, mismatch: mismatch))
        session.close("identity does not match the paired peer", reason: .closedLocally)
    }

    /// Starts pairing on a session that was opened for it, once connected.
    func pairIfRequested(_ session: PeerSession) {
        guard let peer = session.peerUUID, pairWhenConnected.remove(peer) != nil, session.canCarryPairing else { return }
        session.startPairing(nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: config.pairingTimeout)
    }

    /// A paired peer appeared (or came back): try it now, not at its backoff.
    func autoConnectIfPaired(_ row: PeerSnapshot) {
        guard config.autoConnect, row.paired else { return }
        reconnect.appeared(row.id, now: Date())
        reconnectPairedPeers(now: Date())
    }

    /// The kernel reported link or address changes. When one is a gain (a
    /// link came up, an address appeared), paired peers are retried shortly
    /// after, once the burst of notifications that comes with it is over.
    func networkChanged(_ changes: [NetworkChange]) {
        guard linkStates.apply(changes), !networkRetryPending, !stopped else { return }
        networkRetryPending = true
        DispatchQueue.main.asyncAfter(deadline: .now() + .milliseconds(250)) { [weak self] in
            MainActor.assumeIsolated { self?.networkReturned() }
        }
    }

    /// The network came back: forget the backoff, abandon dials to paired
    /// peers still stuck in TCP connect (their SYNs went into the void while
    /// the link was down and would only time out), and dial again now.
    private func networkReturned() {
        networkRetryPending = false
        guard config.autoConnect, !stopped else { return }
        reconnect.networkReturned()
        var abandoned = 0
        for session in Array(sessionByPeer.values) where session.isTCPConnecting && trust.record(peerID: session.expectedPeerID ?? "") != nil {
            session.close("the network changed; dialling again", reason: .closedLocally)
            abandoned += 1
        }
        let waiting = trust.document.peers.filter { sessionByPeer[$0.uuid] == nil }.count
        logger.info("a link or address came up: \(waiting) paired peer\(waiting == 1 ? "" : "s") to retry now\(abandoned > 0 ? " (abandoned \(abandoned) stalled dial\(abandoned == 1 ? "" : "s"))" : "")")
        reconnectPairedPeers(now: Date())
    }

    /// Opens sessions to paired peers that have none, each at its backoff:
    /// 1 s doubling to 60 s with jitter. Where mDNS shows no address, the
    /// addresses of the last connection are tried.
    func reconnectPairedPeers(now: Date) {
        guard config.autoConnect, !stopped else { return }
        for record in trust.document.peers {
            let peer = record.uuid
            guard sessionByPeer[peer] == nil, awaitingCrossed[peer] == nil, reconnect.isDue(peer, now: now) else { continue }
            let shown = peerTable[peer].map { $0.lost ? [] : $0.endpoints } ?? []
            let endpoints = shown.isEmpty ? (record.addresses ?? []) : shown
            guard !endpoints.isEmpty else { continue }
            let due = reconnect.attempted(peer, now: now, random: Double.random(in: 0...1))
            logger.info("connecting to paired peer '\(record.name)'\(shown.isEmpty ? " at its last known addresses" : "") (attempt \(reconnect.attempts(peer)); next in \(Int(due.timeIntervalSince(now).rounded())) s if it fails)")
            dial(peer, endpoints: dialOrder(endpoints), expected: record.peerId, context: [], timeout: 30)
        }
    }

    /// Hands queued messages to a connected peer's session, oldest first,
    /// as far as its send queue takes them; the rest wait for the next tick.
    func drainQueue(for peer: UUID) {
        guard let session = sessionByPeer[peer] else { return }
        queued.drain(to: session, peer: peer, name: peerTable[peer]?.name ?? session.remotePeerID ?? "peer")
    }

    /// The peer acknowledged messages: clients hear it (`delivered`), and
    /// queued ones it has are off the disk.
    public func session(_ session: PeerSession, acknowledged count: UInt64) {
        if let peer = session.peerUUID, count > 0 {
            emit(ControlEvent(seq: 0, type: .delivered, time: Date(), peer: peerTable[peer], delivery: DeliveryInfo(session: session.number, through: count)),
                 replayable: false)
        }
        guard let peer = session.peerUUID, sessionByPeer[peer] === session, let peerID = session.remotePeerID else { return }
        queued.acknowledged(count, peer: peer, peerID: peerID)
    }

    /// Keeps a paired peer's current addresses in the trust store.
    /// Only endpoints at the address of the live, authenticated session are
    /// kept: an address someone merely advertised for the peer proves nothing.
    func rememberAddresses(of peer: UUID) {
        guard let row = peerTable[peer], let peerID = row.peerId, var record = trust.record(peerID: peerID),
              let session = sessionByPeer[peer], session.isAuthenticated else { return }
        let proven = row.endpoints.filter { $0.address == session.remoteHost }
        guard !proven.isEmpty, record.addresses != proven else { return }
        record.addresses = proven
        do { try trust.upsert(record) } catch { logger.warning("cannot remember the addresses of '\(row.name)': \(error)") }
    }

    /// The peer asks to pair.
    public func sessionPairingRequested(_ session: PeerSession) {
        let now = Date()
        guard let peerID = session.remotePeerID, let peer = session.peerUUID else { return }
        if let until = throttle.refusedUntil(peerID, now: now) {
            logger.notice("refusing a pairing request from \(peerID): too many wrong codes; locked out for \(Int(until.timeIntervalSince(now))) s")
            session.answerPairingRequest(accept: false, nonce: [], timeout: 0, refusal: .lockedOut,
                                         text: "too many wrong codes; try again in \(Int(until.timeIntervalSince(now))) s")
            return
        }
        guard control.subscriberCount > 0 else {
            session.answerPairingRequest(accept: false, nonce: [], timeout: 0, refusal: .rejected, text: "no client is subscribed on this host to confirm the code")
            return
        }
        let id = UUID().uuidString.lowercased()
        session.pairingID = id
        pairings[id] = session
        pairingInfo[id] = PairingInfo(id: id, peer: peer, name: peerTable[peer]?.name ?? "", peerId: peerID, initiator: false, code: nil,
                                      expires: now.addingTimeInterval(config.pairingTimeout))
        session.answerPairingRequest(accept: true, nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: config.pairingTimeout)
    }

    /// A pairing step.
    public func session(_ session: PeerSession, pairing action: PairingAction) {
        guard let peer = session.peerUUID else { return }
        if session.pairingID == nil, session.role == .inviter || session.pairing?.role == .inviter {
            let id = UUID().uuidString.lowercased()
            session.pairingID = id
            pairings[id] = session
            pairingInfo[id] = PairingInfo(id: id, peer: peer, name: peerTable[peer]?.name ?? "", peerId: session.remotePeerID ?? "",
                                          initiator: true, code: nil, expires: Date().addingTimeInterval(config.pairingTimeout))
        }
        guard let id = session.pairingID, var info = pairingInfo[id] else { return }
        switch action {
        case .send:
            break
        case .showCode(let code):
            info.code = code
            pairingInfo[id] = info
            logger.notice("pairing with '\(info.name)': code \(code); confirm it on the other host")
            emit(ControlEvent(seq: 0, type: .pairingCode, time: Date(), peer: peerTable[peer], pairing: info))
        case .askUser(let code):
            info.code = code
            pairingInfo[id] = info
            logger.notice("'\(info.name)' asks to pair; confirm with the code shown on it (pairing \(id))")
            emit(ControlEvent(seq: 0, type: .pairingRequest, time: Date(), peer: peerTable[peer], pairing: info))
        case .storeTrust:
            // Responder: the trust goes to disk before the confirmation goes out.
            let stored = storeTrust(for: session, peer: peer, name: info.name)
            session.trustStored(stored)
        case .paired:
            pairings[id] = nil
            pairingInfo[id] = nil
            guard let peerID = session.remotePeerID else { return }
            // The responder stored the trust already; the initiator stores it now.
            if trust.record(peerID: peerID)?.publicKey != session.remoteStaticKey.map(Hex.encode), !storeTrust(for: session, peer: peer, name: info.name) {
                // The responder trusts us already: take that back, so the two agree.
                session.sendUnpair()
                emit(ControlEvent(seq: 0, type: .pairingFailed, time: Date(), peer: peerTable[peer], pairing: info, pairingFailure: .storageFailed))
                if session.isForPairing { session.close("pairing failed: storageFailed") }
                return
            }
            refresh(peer)
            let name = trust.record(peerID: peerID)?.name ?? info.name
            logger.notice("paired with '\(name)' (\(peerID))")
            emit(ControlEvent(seq: 0, type: .paired, time: Date(), peer: peerTable[peer], pairing: info))
            // A session opened to pair ends with it; paired peers then
            // connect afresh, as peers that trust each other.
            if session.isForPairing { session.close("paired; a new session follows", reason: .closedLocally) }
        case .failed(let failure, let text):
            pairings[id] = nil
            pairingInfo[id] = nil
            session.pairingID = nil
            if failure == .wrongCode, !info.initiator, let until = throttle.recordFailure(info.peerId, now: Date()) {
                logger.warning("three wrong pairing codes from '\(info.name)'; refusing its pairing requests until \(until.formatted(.iso8601))")
            }
            logger.notice("pairing with '\(info.name)' failed: \(failure.rawValue): \(text)")
            emit(ControlEvent(seq: 0, type: .pairingFailed, time: Date(), peer: peerTable[peer], pairing: info, pairingFailure: failure))
            // A session opened only to pair ends with the pairing.
            if session.isForPairing { session.close("pairing failed: \(failure.rawValue)") }
        }
    }

    /// Writes the trust record for the session's proven key; false (logged)
    /// when the trust store cannot be written.
    private func storeTrust(for session: PeerSession, peer: UUID, name: String) -> Bool {
        guard let key = session.remoteStaticKey, let peerID = session.remotePeerID else { return false }
        var record = TrustRecord(publicKey: Hex.encode(key), peerId: peerID, name: peerTable[peer]?.name ?? name, uuid: peer, pairedAt: Date())
        if let endpoints = peerTable[peer]?.endpoints.filter({ $0.address == session.remoteHost }), !endpoints.isEmpty { record.addresses = endpoints }
        do {
            try trust.upsert(record)
            return true
        } catch {
            logger.error("cannot store the pairing with '\(record.name)': \(error)")
            return false
        }
    }

    /// The peer removed its trust in us: remove ours.
    public func sessionUnpaired(_ session: PeerSession) {
        guard let peerID = session.remotePeerID, let peer = session.peerUUID, trust.record(peerID: peerID) != nil else { return }
        do { try trust.remove(peerID: peerID) } catch {
            logger.error("cannot remove '\(peerID)' from the trust store: \(error)")
            return
        }
        refresh(peer)
        logger.notice("'\(peerTable[peer]?.name ?? peerID)' unpaired us; trust removed")
        emit(ControlEvent(seq: 0, type: .unpaired, time: Date(), peer: peerTable[peer]))
    }
}
