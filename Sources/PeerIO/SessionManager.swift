import Dispatch
import FoundationEssentials
import Glibc
import PeerCore

/// The daemon's owner of system objects: the Avahi client and entry group
/// (through ``AvahiController``), the session listener, and the control
/// server. It runs the pure lifecycles (``AvahiClientLifecycle``,
/// ``ServicePublisher``) by performing the actions they return, feeds
/// discovery events in order into the ``IdentityActor``, and publishes the
/// resulting peer snapshots and events to clients.
@MainActor
public final class SessionManager: ControlRequestHandler {
    /// peerd's version string.
    public static let version = "0.1.0"

    private let config: DaemonConfiguration
    private let logger: Logger
    private let identityKey: IdentityKey
    private let txt: TXTRecord
    private let interfaceIndexes: [Int32]
    private let identity: IdentityActor
    private let control: ControlServer
    private let sessionListener: TCPListener
    private let avahi: AvahiController
    private let avahiEvents: AsyncStream<AvahiBridgeEvent>
    private var lifecycle = AvahiClientLifecycle()
    private var publisher: ServicePublisher
    private var journal: EventJournal
    private var peerOrder: [UUID] = []
    private var peerTable: [UUID: PeerSnapshot] = [:]
    private var peersRejected = 0
    private var resolverLimitLogged = false
    private var sessionAcceptSource: (any DispatchSourceRead)?
    private var consumer: Task<Void, Never>?
    private let startedAt = Date()
    private var stopped = false

    /// The maximum number of open resolvers: bounded by Avahi's per-client
    /// object limit (1024 by default) anyway, and by the peer cap.
    private var maxResolvers: Int { min(1000, max(64, config.maxPeers * 4)) }

    /// Binds every socket and loads the identity; nothing runs until ``start()``.
    public init(config: DaemonConfiguration, logger: Logger) throws(DaemonStartupError) {
        self.config = config
        self.logger = logger
        do { try Sodium.initialize() } catch { throw .crypto(error.description) }
        do {
            interfaceIndexes = try config.interfaces.map { name throws(SystemError) in try InterfaceNames.index(of: name) }
        } catch {
            throw .interface(error)
        }
        let loaded: (key: IdentityKey, created: Bool)
        do { loaded = try IdentityKey.loadOrCreate(in: config.stateDirectory) } catch { throw .identity(error) }
        identityKey = loaded.key
        do { txt = try TXTRecord(peerID: loaded.key.peerID, info: config.info) } catch { throw .txt(error.description) }
        do { sessionListener = try TCPListener(port: config.port) } catch { throw .sessionPort(error) }
        do {
            control = try ControlServer(path: config.socketPath, queueLimit: config.subscriberQueueBytes, logger: logger)
        } catch {
            sessionListener.close()
            throw .controlSocket(error)
        }
        let (stream, continuation) = AsyncStream.makeStream(of: AvahiBridgeEvent.self, bufferingPolicy: .unbounded)
        avahiEvents = stream
        do { avahi = try AvahiController(continuation: continuation) } catch {
            sessionListener.close()
            throw .avahi(error)
        }
        identity = IdentityActor(maxPeers: config.maxPeers)
        publisher = ServicePublisher(name: config.name)
        journal = EventJournal(capacity: config.eventHistory)
        if loaded.created {
            logger.notice("generated a new identity key in \(config.stateDirectory)/\(IdentityKey.fileName)")
        }
    }

    /// Starts serving: control clients, the session port, and Avahi.
    public func start() {
        control.handler = self
        control.start()
        let source = DispatchSource.makeReadSource(fileDescriptor: sessionListener.descriptor.rawValue, queue: .main)
        source.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.acceptSessions() } }
        sessionAcceptSource = source
        source.resume()
        // One consumer drains the bridge's stream, so events reach the
        // identity actor in exactly Avahi's order.
        let events = avahiEvents
        consumer = Task { [weak self] in
            for await event in events {
                guard let self else { return }
                await self.route(event)
            }
        }
        logger.info("peerd \(Self.version) starting: peer id \(identityKey.peerID), name '\(config.name)', type \(config.serviceType), session port \(sessionListener.port)\(sessionListener.dualStack ? " (IPv4+IPv6)" : " (IPv4)"), control socket \(config.socketPath)")
        perform(lifecycle.start())
    }

    /// Withdraws the service, frees Avahi, closes the sockets and removes the
    /// control socket. Idempotent.
    public func shutdown() {
        guard !stopped else { return }
        stopped = true
        _ = lifecycle.stop()
        consumer?.cancel()
        avahi.shutdown()
        sessionAcceptSource?.cancel()
        sessionListener.close()
        control.stop(time: Date())
        logger.info("stopped")
    }

    // MARK: Avahi lifecycle

    private func perform(_ actions: [AvahiClientAction]) {
        for action in actions {
            switch action {
            case .createClient:
                createClient()
            case .recreateClient:
                publisher.clientLost()
                avahi.freeClient()
                logger.warning("lost avahi-daemon (\(lifecycle.lastMessage ?? "failure")); reconnecting")
                createClient()
            case .scheduleRetry(let seconds):
                Task { [weak self] in
                    try? await Task.sleep(for: .seconds(seconds))
                    guard let self, !self.stopped else { return }
                    self.perform(self.lifecycle.retryDue())
                }
            case .startBrowsing:
                do {
                    try avahi.startBrowsing(type: config.serviceType, interfaces: interfaceIndexes)
                } catch {
                    logger.error("cannot browse \(config.serviceType): \(error)")
                }
            case .publish:
                perform(publisher.clientRunning())
            case .resetPublication:
                perform(publisher.clientReset())
            case .forgetDiscoveries, .shutdown:
                // forgetDiscoveries is awaited in route(_:), in stream order.
                break
            }
        }
    }

    private func createClient() {
        do {
            try avahi.createClient(generation: lifecycle.generation)
        } catch {
            logger.warning("cannot create Avahi client: \(error); retrying")
            perform(lifecycle.creationFailed(message: error.description))
        }
    }

    private func perform(_ actions: [PublisherAction]) {
        for action in actions {
            switch action {
            case .register(let name):
                switch avahi.register(name: name, type: config.serviceType, port: sessionListener.port, txt: txt.entries, interfaces: interfaceIndexes) {
                case .committed: logger.debug("registering '\(name)'")
                case .collision: perform(publisher.collision())
                case .failed(let message): perform(publisher.failed(message))
                }
            case .reset:
                avahi.resetGroup()
            case .chooseAlternative(let name):
                perform(publisher.alternativeChosen(avahi.alternativeName(for: name)))
            case .log(let message):
                logger.notice(message)
            }
        }
    }

    private func route(_ event: AvahiBridgeEvent) async {
        // A freed client's late events describe objects that no longer exist.
        guard event.generation == lifecycle.generation, !stopped else { return }
        switch event {
        case .clientState(let generation, let state):
            if case .connecting = state { logger.notice("avahi-daemon is not running; waiting for it") }
            if case .running = state { logger.info("connected to avahi-daemon") }
            let actions = lifecycle.clientStateChanged(state, generation: generation)
            if actions.contains(.forgetDiscoveries) {
                publish(await identity.apply(.daemonLost))
            }
            perform(actions)
        case .groupState(_, let state):
            switch state {
            case .established: perform(publisher.established())
            case .collision: perform(publisher.collision())
            case .failure(let message): perform(publisher.failed(message))
            case .pending: break
            }
        case .serviceFound(_, let key, let ourOwn):
            guard !ourOwn else { return }
            guard avahi.resolverCount < maxResolvers else {
                if !resolverLimitLogged { logger.warning("\(maxResolvers) services are being resolved; ignoring more until some go away") }
                resolverLimitLogged = true
                return
            }
            if !avahi.startResolver(key) { logger.warning("cannot resolve \(key): Avahi refused a resolver") }
        case .serviceRemoved(_, let key):
            avahi.stopResolver(key)
            resolverLimitLogged = false
            publish(await identity.apply(.removed(key)))
        case .browserFailed(_, let message):
            logger.error("browsing \(config.serviceType) failed: \(message)")
        case .resolved(_, let service):
            // Our own service seen through another client (several peerd
            // instances on one avahi-daemon) is still us.
            guard service.advertisedPeerID != identityKey.peerID else { return }
            publish(await identity.apply(.resolved(service)))
        case .resolveFailed(_, let key, let message):
            logger.debug("resolving \(key) failed: \(message)")
            avahi.stopResolver(key)
        }
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
                logger.info("peer found: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased()) at \(snapshot.endpoints.map { "\($0.address)%\($0.interface):\($0.port)" }.joined(separator: ", "))")
            case .updated(let snapshot):
                kind = .peerUpdated
                peer = snapshot
                logger.debug("peer updated: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased())")
            case .lost(let snapshot):
                kind = .peerLost
                peer = snapshot
                logger.info("peer lost: '\(snapshot.name)' \(snapshot.id.uuidString.lowercased())")
            case .rejectedAtCap(let key):
                peersRejected += 1
                if peersRejected == 1 || peersRejected % 100 == 0 {
                    logger.warning("peer cap (\(config.maxPeers)) reached; not tracking \(key) (\(peersRejected) turned away so far)")
                }
                continue
            }
            if peerTable[peer.id] == nil { peerOrder.append(peer.id) }
            peerTable[peer.id] = peer
            control.broadcast(journal.append(kind, peer: peer, time: Date()))
        }
    }

    private func acceptSessions() {
        while true {
            do {
                guard let connection = try sessionListener.accept() else { return }
                // Sessions are not spoken yet; the port exists to be advertised.
                connection.close()
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
            reply(connection, id: id, result: PeersResult(peers: peerOrder.compactMap { peerTable[$0] }))
        case .peer:
            guard let selector = params.peer else {
                reply(connection, id: id, error: ControlError(.invalidParams, "'peer' needs params.peer: a UUID, a unique UUID prefix or a unique name"))
                return
            }
            switch PeerSelector.select(selector, from: peerOrder.compactMap { peerTable[$0] }) {
            case .success(let peer): reply(connection, id: id, result: PeerResult(peer: peer))
            case .failure(let error): reply(connection, id: id, error: error)
            }
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
        }
    }

    private func status() -> DaemonStatus {
        let peers = peerOrder.compactMap { peerTable[$0] }
        var message = lifecycle.lastMessage
        if lifecycle.status == .waitingForDaemon { message = "avahi-daemon is not running; peerd connects when it starts" }
        if publisher.state == .failed { message = publisher.failure }
        return DaemonStatus(
            version: Self.version, pid: getpid(), uptime: Int(Date().timeIntervalSince(startedAt)),
            peerId: identityKey.peerID, requestedName: publisher.requestedName, name: publisher.name,
            serviceType: config.serviceType, port: sessionListener.port, interfaces: config.interfaces,
            avahi: lifecycle.status, avahiMessage: message, publication: publisher.state,
            peers: peers.count, lostPeers: peers.filter(\.lost).count, maxPeers: config.maxPeers,
            peersRejected: peersRejected, eventSeq: journal.lastSeq, socket: control.path)
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
        guard !connection.send(line) else { return }
        logger.warning("control client \(connection.number) is not reading its responses; dropping it")
        let error = ControlError(.overloaded, "too many unread responses; read them before sending more requests")
        if let final = try? JSONLines.encode(ControlResponse<EmptyResult>(id: id, error: error)) { connection.drop(finalLine: final) }
    }
}
