import Dispatch
import FoundationEssentials
import CMalloc
import Glibc
import PeerCore
import PeerProtocol

/// The composition root: opens what the daemon owns (the identity key, the
/// session port, the control socket, the Avahi client, the trust store, the
/// queue and the inbox), builds the components, wires them to each other,
/// and runs the one-second clock, which is the daemon's one timer: every
/// component keeps deadlines read from the injected ``DaemonClock`` and
/// acts on them when ticked. It decides nothing itself.
@MainActor
package final class PeerDaemon {
    private let config: DaemonConfiguration
    private let logger: Logger
    private let identityKey: IdentityKey
    let identity: IdentityActor
    let control: ControlServer
    let sessionListener: TCPListener
    let discovery: DiscoveryCoordinator
    /// Numbers events, keeps them for replay, and sends them to clients.
    let events: EventOutlet
    let directory: PeerDirectory
    let invitations: InvitationDesk
    let pairing: PairingCoordinator
    let trust: TrustDesk
    let reconnect: ReconnectController
    private let health = ServiceHealth()
    let queued: QueuedDelivery
    /// Messages no client takes wait here, each app's in its own inbox
    /// (see ``InboxBook`` and ``InboxDelivery``).
    private(set) lazy var inboxes = InboxBook(
        main: InboxDelivery(stateDirectory: config.stateDirectory, limit: config.inboxBytes, budget: config.subscriberQueueBytes / 2,
                            events: events, logger: logger,
                            lookUp: { [unowned self] peerID in self.sender(peerID) },
                            onRoom: { [unowned self] in self.reconnect.inboxHasRoom() }, clock: clock),
        existing: InboxBook.existingApps(stateDirectory: config.stateDirectory),
        make: { [unowned self] app, limit in self.appInbox(app, limit: limit) })
    private(set) var director: SessionDirector!
    /// Files between peers.
    let transfers: TransferDesk
    /// Streams between peers.
    let streams: StreamDesk
    /// The features that plug into the sessions (``SessionFeatures``).
    let features: SessionFeatures
    /// The apps registered on this host (issue 23).
    let apps: AppDesk
    /// Each app's state with each peer.
    let appSessions: AppSessions
    /// When free heap goes back to the system.
    private var heapTrim = HeapTrimPolicy()
    /// Both, as the sessions see them.
    private let plane: DataPlane
    /// The datagram path: the UDP socket, and each session's link.
    let datagrams: DatagramDesk
    private(set) var requests: SessionRequests!
    /// Answers control requests (``ControlServer/handler`` holds it weakly).
    private(set) var router: ControlRouter?
    private var tickTimer: (any DispatchSourceTimer)?
    /// Every conversation with the identity actor, in order.
    private let lane = IdentityLane()
    /// The daemon's one long-lived task (``run()``).
    private var runner: Task<Void, Never>?
    private let startedAt: Date
    /// The one clock every component reads.
    private let clock: DaemonClock
    private var stopped = false

    /// Binds every socket and loads the identity; nothing runs until ``start()``.
    /// Large buffers (a long request line, a backed-up session) are given
    /// their own mappings, so freeing them returns the memory at once:
    /// glibc's default would raise that threshold after the first one.
    package init(config: DaemonConfiguration, logger: Logger, activatedControlSocket: FileDescriptor? = nil,
                clock: DaemonClock = .system) throws(DaemonStartupError) {
        self.clock = clock
        startedAt = clock.now()
        self.config = config
        self.logger = logger
        // Buffers of 64 KiB and more (frames, read buffers, coalesced
        // output) get mappings of their own, so freeing one returns it whole:
        // on the heap, they left free fragments that pinned pages between
        // small live objects (the soak, issue 21: up to 600 KB after faults).
        _ = mallopt(M_MMAP_THRESHOLD, 64 * 1024)
        // Bulk work frees and reallocates frame-sized buffers all the time:
        // freed memory stays for reuse (no page fault per frame) until the
        // transfer or stream ends, which trims it (``malloc_trim``).
        _ = mallopt(M_TRIM_THRESHOLD, 16 << 20)
        // Nearly all work is on the main thread; the few allocations of
        // Dispatch's and Avahi's threads would otherwise each open an
        // arena of their own, whose free pages outlive a trim of the main
        // one's top (issue 13, point 4).
        _ = mallopt(M_ARENA_MAX, 1)
        Self.raiseDescriptorLimit()
        do { try Sodium.initialize() } catch { throw .crypto(error.description) }
        let interfaceIndexes: [Int32]
        do {
            interfaceIndexes = try config.interfaces.map { name throws(SystemError) in try InterfaceNames.index(of: name) }
        } catch {
            throw .interface(error)
        }
        // A state file of a layout this release cannot read stops start-up
        // before anything could rewrite it (the queues and trust check their own).
        for app in [AppName.none] + InboxBook.existingApps(stateDirectory: config.stateDirectory) {
            if let unreadable = MessageInbox.unreadableHeader(stateDirectory: config.stateDirectory, fileName: InboxDelivery.fileName(of: app))
                ?? MessageInbox.unreadableHeader(stateDirectory: config.stateDirectory, fileName: InboxDelivery.oldFileName(of: app),
                                                 expected: InboxFileCodec.header1) {
                throw .stateFile(path: unreadable.path, found: unreadable.found)
            }
        }
        let appStore = AppStore(stateDirectory: config.stateDirectory, logger: logger)
        if let found = appStore.unreadable() { throw .stateFile(path: appStore.path, found: found) }
        var reservations: [AppName: AppReservation] = [:]
        for (app, rule) in config.appReservations {
            guard let reservation = PeerCredentials.reservation(rule) else { throw .appReservation(app: app.text, rule: rule) }
            reservations[app] = reservation
        }
        let wideArea = try WideAreaSettings.from(config)
        let loaded: (key: IdentityKey, created: Bool)
        do { loaded = try IdentityKey.loadOrCreate(in: config.stateDirectory) } catch { throw .identity(error) }
        identityKey = loaded.key
        let portNote: String?
        do {
            (sessionListener, portNote) = try SessionPortFile.openListener(configured: config.port, stateDirectory: config.stateDirectory)
        } catch {
            throw .sessionPort(error)
        }
        // The datagram path's UDP port is the session port's number where
        // it is free (one number for a firewall), else any; with none at
        // all, peerd runs on without datagrams.
        let udp: Result<UDPSocket, SystemError>
        do { udp = .success(try UDPSocket(port: sessionListener.port)) } catch { udp = .failure(error) }
        let txt: TXTRecord
        do { txt = try TXTRecord(peerID: loaded.key.peerID, info: config.info, datagramPort: try? udp.get().port) } catch {
            sessionListener.close()
            throw .txt(error.description)
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
        do { opened = try TrustStore.open(in: config.stateDirectory, reset: config.resetTrust, now: clock.now()) } catch {
            sessionListener.close()
            control.stop(time: clock.now())
            avahi.shutdown()
            throw .trust(error)
        }
        do { queued = try QueuedDelivery(stateDirectory: config.stateDirectory, logger: logger) } catch {
            sessionListener.close()
            control.stop(time: clock.now())
            avahi.shutdown()
            throw .queue(error)
        }
        if let aside = opened.movedAside { logger.warning("--reset-trust: moved the unreadable trust store to \(aside); no peer is trusted now") }
        // Paired peers keep the UUIDs they were given, across restarts.
        identity = IdentityActor(maxPeers: config.maxPeers, maxUnverified: config.maxUnverifiedPeers,
                                 known: opened.store.document.peers.map { KnownPeer(peerID: $0.peerId, uuid: $0.uuid, name: $0.name) },
                                 clock: clock.now)
        // The maximum number of open resolvers: bounded by Avahi's
        // per-client object limit (1024 by default) anyway, and by the peer cap.
        let events = EventOutlet(history: config.eventHistory, control: control)
        self.events = events
        // The sessions' one table, shared by the director (its writer) and
        // the components that look sessions up by peer.
        let table = SessionTable()
        // The trust document's one keeper: the directory reads it to mark
        // rows paired, and the trust desk acts on it.
        let keeper = TrustKeeper(store: opened.store)
        let directory = PeerDirectory(logger: logger, maxPeers: config.maxPeers, maxUnverifiedPeers: config.maxUnverifiedPeers, clock: clock,
                                      sessions: table, isPaired: { keeper.document.record(peerID: $0) != nil }, emit: events.emit)
        self.directory = directory
        discovery = DiscoveryCoordinator(avahi: avahi, events: stream, identity: identity, lane: lane, logger: logger,
                                         name: config.name, serviceType: config.serviceType, interfaceIndexes: interfaceIndexes,
                                         txt: txt, port: sessionListener.port, ownPeerID: loaded.key.peerID,
                                         maxResolvers: min(1000, max(64, config.maxPeers * 4)), clock: clock,
                                         protectedRows: { table.protectedRows(paired: keeper.document.peers.map(\.uuid)) },
                                         onChanges: { changes in directory.apply(changes) })
        if let settings = wideArea {
            discovery.wideArea = WideAreaCoordinator(settings: settings, identity: identity, lane: lane, logger: logger, clock: clock,
                                                     ownPeerID: loaded.key.peerID, name: config.name, serviceType: config.serviceType,
                                                     port: sessionListener.port, txt: txt.entries,
                                                     protectedRows: { table.protectedRows(paired: keeper.document.peers.map(\.uuid)) },
                                                     onChanges: { changes in directory.apply(changes) },
                                                     recount: { [discovery] in await discovery.refreshUnverified() })
        }
        apps = AppDesk(store: appStore, baseRecordBytes: TXTRecord.wireSize(of: txt.entries), reservations: reservations,
                       discovery: discovery, serviceType: config.serviceType, sessions: table, logger: logger)
        invitations = InvitationDesk(rate: config.invitationRate, logger: logger, onWaiting: { [clock] info in
            events.emit(ControlEvent(seq: 0, type: .invitation, time: clock.now(), peer: directory.row(info.peer), invitation: info))
        })
        let queued = self.queued
        trust = TrustDesk(keeper: keeper, autoAccept: config.autoAccept, directory: directory, logger: logger,
                          clock: clock, emit: events.emit, onUnpaired: { peerID, peer in queued.discard(peerID, peer: peer) })
        reconnect = ReconnectController(enabled: config.autoConnect, interfaces: Set(interfaceIndexes),
                                        surroundings: DaemonReconnectSurroundings(table: table, trust: trust, directory: directory),
                                        logger: logger, clock: clock)
        let trustDesk = trust
        appSessions = AppSessions(table: table, directory: directory, apps: apps, events: events,
                                  accepts: { [config] app, peerID in
            switch config.appAutoAccept[app] ?? .none {
            case .all: true
            case .paired: trustDesk.isPaired(peerID)
            case .none: false
            }
        }, rateAllows: { [invitations, clock] peer, peerID in
            invitations.allowsAppInvitation(from: peer, paired: trustDesk.isPaired(peerID), now: clock.now())
        }, logger: logger, clock: clock)
        pairing = PairingCoordinator(trust: trust, timeout: config.pairingTimeout, directory: directory, logger: logger, clock: clock,
                                     emit: events.emit, subscribers: { [control] in control.subscriberCount })
        let socketDirectory = String(config.socketPath.split(separator: "/", omittingEmptySubsequences: false).dropLast().joined(separator: "/"))
        let surroundings = DaemonTransferSurroundings(sessions: table, directory: directory, trust: trust, control: control, apps: apps,
                                                      clock: clock, events: events)
        transfers = TransferDesk(downloads: config.downloads, stateDirectory: config.stateDirectory, runtimeDirectory: socketDirectory.isEmpty ? "." : socketDirectory,
                                 offerTimeout: config.offerTimeout, partialLifetime: config.partialLifetime, policy: config.autoAccept,
                                 surroundings: surroundings, logger: logger, clock: clock)
        streams = StreamDesk(sessions: table, logger: logger, clock: clock)
        plane = DataPlane(transfers: transfers, streams: streams)
        datagrams = DatagramDesk(socket: udp, sessions: table, appSessions: appSessions, apps: apps, directory: directory, logger: logger, clock: clock)
        // The features that plug into the sessions: each owns its messages
        // and methods, and hears of sessions in this order.
        features = SessionFeatures([
            ChannelDesk(maxMessage: config.maxMessage, sessions: table, apps: apps, appSessions: appSessions, directory: directory, clock: clock,
                        events: events, logger: logger),
            datagrams,
            LaneDesk(listener: config.lanePort.map { port in
                         Result { () throws(SystemError) in try TCPListener(port: port) }
                             .mapError { LaneUnavailable("this host's lane port could not be opened: \($0.description)") }
                     } ?? .failure(LaneUnavailable("lanes are off here (lane-port = off)")),
                     sessions: table, logger: logger, clock: clock),
            DownloadShelf(downloads: config.downloads, apps: apps),
        ])
        // The sessions, last: they use every component above.
        director = SessionDirector(config: config, logger: logger, identityKey: identityKey, identity: identity, lane: lane, control: control, table: table,
                                   sessionListener: sessionListener, discovery: discovery, directory: directory, pairing: pairing, trust: trust,
                                   invitations: invitations, reconnect: reconnect, queued: queued, inboxes: inboxes, apps: apps, appSessions: appSessions, bulk: plane,
                                   features: features, emit: events.emit, clock: clock)
        requests = SessionRequests(director: director, directory: directory, pairing: pairing, trust: trust, queued: queued, appSessions: appSessions,
                                   ownPeerID: identityKey.peerID, pairingTimeout: config.pairingTimeout,
                                   addGate: AddGate(allowLocal: config.allowLocalAdd, clock: clock))
        if let portNote { logger.notice(portNote) }
        if loaded.created {
            logger.notice("generated a new identity key in \(config.stateDirectory)/\(IdentityKey.fileName)")
        }
    }


    /// Starts serving: control clients, the session port, and Avahi.
    package func start() {
        // Made here, not in init: it reads the daemon's status.
        let router = ControlRouter(maxMessage: config.maxMessage, directory: directory, pairing: pairing, trust: trust, invitations: invitations,
                                   queued: queued, inboxes: inboxes, sessions: requests, transfers: transfers, streams: streams,
                                   apps: apps, appSessions: appSessions, features: features, events: events, hold: director.hold,
                                   status: { [unowned self] in self.status() })
        self.router = router
        // Room for one whole message event past --subscriber-queue: the flow
        // of messages is held back at half of it, so only the message that
        // crossed the mark can come on top.
        control.clock = clock
        control.messageAllowance = ControlProtocol.maxRequestLineBytes(maxMessage: config.maxMessage)
        control.maxClients = config.maxClients
        control.groupName = config.group
        control.policy = AccessPolicy(groupID: PeerCredentials.groupID(named: config.group), publicRead: config.publicRead)
        if control.policy.groupID == nil { logger.notice("group '\(config.group)' does not exist: only root may use the control socket") }
        if let refused = BulkThread.refusal { logger.warning("bulk work cannot step back for small messages: \(refused.description)") }
        control.start(handler: router)
        director.start()
        features.start()
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.tick() } }
        tickTimer = timer
        timer.resume()
        reconnect.start()
        logger.info("peerd \(PeerdVersion.string) starting: peer id \(identityKey.peerID), name '\(config.name)', type \(config.serviceType), session port \(sessionListener.port)\(sessionListener.dualStack ? " (IPv4+IPv6)" : " (IPv4)"), datagram port \(datagrams.port), control socket \(control.path)")
        runner = Task { await self.run() }
        health.ready(status: serviceStatusLine(), now: clock.now())
    }

    /// The daemon's tasks, structured: first the rows of paired peers are
    /// seeded (under their stored UUIDs), then Avahi starts, so no event
    /// of its can reach the read model before them; then the lane (every
    /// conversation with the identity actor, in order) and the pump of
    /// Avahi's events run side by side until ``shutdown()`` ends both.
    private func run() async {
        directory.seed(await identity.snapshots())
        guard !stopped else { return }
        apps.start()
        discovery.start()
        discovery.wideArea?.start()
        await withDiscardingTaskGroup { group in
            group.addTask { await self.lane.run() }
            group.addTask { await self.discovery.pump() }
            if let wideArea = self.discovery.wideArea { group.addTask { await wideArea.pump() } }
        }
    }

    /// Once a second, from the main queue: every component's clock. The
    /// watchdog is fed from here, so a wedged main actor stops it.
    private func tick() {
        let now = clock.now()
        if heapTrim.tick(now: now, freeBytes: Int(mallinfo2().fordblks)) {
            malloc_trim(0)
            // The thread that runs the main queue ran deepest of all; what
            // lies below this frame goes back with the heap's free pages.
            ThreadStack.releaseBelowCurrentFrame()
        }
        director.tick(now: now)
        control.tick(now: now)
        discovery.tick(now: now)
        for dial in reconnect.tick(now: now) { director.dialPaired(dial.peer, endpoints: dial.endpoints, peerID: dial.peerID) }
        transfers.tick(now: now)
        streams.tick(now: now)
        features.tick(now: now)
        health.tick(now: now, status: serviceStatusLine())
    }

    /// The one-line status systemd shows (`systemctl status peerd`).
    private func serviceStatusLine() -> String {
        "'\(discovery.name)' \(discovery.publication.rawValue); avahi \(discovery.avahiStatus.rawValue); \(directory.all.filter { !$0.lost }.count) peers present, \(directory.connectedCount) connected"
    }

    /// `app`'s inbox (``InboxBook``): `limit` bytes, its `stored` events for
    /// its clients alone, and room in it lets peers whose messages of it
    /// were refused send them again.
    private func appInbox(_ app: AppName, limit: Int) -> InboxDelivery {
        InboxDelivery(stateDirectory: config.stateDirectory, app: app, limit: limit, budget: config.subscriberQueueBytes / 2,
                      events: events, logger: logger,
                      lookUp: { [unowned self] peerID in self.sender(peerID) },
                      onRoom: { [unowned self] in for session in self.director.table.sessions { session.appHasRoom(app) } },
                      audience: { [unowned self] connection in self.apps.holds(app, connection) }, clock: clock)
    }

    /// Who sent a stored or arriving message, as clients see it.
    private func sender(_ peerID: String) -> InboxSender {
        if let record = trust.record(peerID: peerID) { return .init(uuid: record.uuid, name: record.name, paired: true) }
        let row = directory.row(peerID: peerID)
        return .init(uuid: row?.id, name: row?.name, paired: false)
    }

    /// The daemon's status (`status`).
    private func status() -> DaemonStatus {
        let peers = directory.all
        let heap = mallinfo2()
        var status = DaemonStatus(
            version: PeerdVersion.string, pid: getpid(), uptime: Int(clock.now().timeIntervalSince(startedAt)),
            peerId: identityKey.peerID, requestedName: discovery.requestedName, name: discovery.name,
            serviceType: config.serviceType, port: sessionListener.port, interfaces: config.interfaces,
            avahi: discovery.avahiStatus, avahiMessage: discovery.statusMessage, publication: discovery.publication,
            peers: peers.count, lostPeers: peers.filter(\.lost).count, maxPeers: config.maxPeers,
            peersRejected: directory.rejectedCount, eventSeq: events.lastSeq, socket: control.path,
            sessions: director.count, subscribers: control.subscriberCount,
            unverifiedPeers: discovery.unverifiedPeers, maxUnverifiedPeers: config.maxUnverifiedPeers)
        status.heapInUse = Int(heap.uordblks)
        status.heapFree = Int(heap.fordblks)
        status.wire = PeerdVersion.wire
        status.features = LocalHello.ours.names
        features.describe(&status)
        status.wideArea = discovery.wideArea?.status
        return status
    }

    /// Withdraws the service, frees Avahi, closes the sockets and removes the
    /// control socket. Idempotent.
    package func shutdown() {
        guard !stopped else { return }
        stopped = true
        health.stopping()
        tickTimer?.cancel()
        reconnect.stop()
        director.stop()
        transfers.stop()
        streams.stop()
        features.stop()
        discovery.shutdown()
        lane.finish()
        sessionListener.close()
        control.stop(time: clock.now())
        // Writes handed to the disk workers finish before the process exits.
        queued.finishWriting()
        inboxes.finishWriting()
        trust.finishWriting()
        logger.info("stopped")
    }
}
