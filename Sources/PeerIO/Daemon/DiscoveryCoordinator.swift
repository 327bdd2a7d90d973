import FoundationEssentials
import PeerCore
import PeerProtocol

/// Discovery: the Avahi client's lifecycle, this host's publication, and
/// the browse/resolve stream.
///
/// It runs the pure lifecycles (``AvahiClientLifecycle``,
/// ``ServicePublisher``) by performing the actions they return, keeps one
/// resolver per service key under a cap, and feeds discovery events, in
/// Avahi's order, through the ``IdentityLane`` to the ``IdentityActor``;
/// the actor's changes go to ``onChanges`` (the peer directory).
@MainActor
package final class DiscoveryCoordinator {
    private let avahi: AvahiController
    private let events: AsyncStream<AvahiBridgeEvent>
    private let identity: IdentityActor
    private let lane: IdentityLane
    private let logger: Logger
    private let serviceType: String
    private let interfaceIndexes: [Int32]
    private let txt: TXTRecord
    private let port: UInt16
    private let ownPeerID: String
    private let maxResolvers: Int
    /// The apps' part of the publication (issue 23): their TXT strings,
    /// after ours, and their subtypes. The registry decides them; this is
    /// what was last handed to Avahi, kept for the next registration.
    private var appTXT: [TXTEntry] = []
    private var appSubtypes: Set<String> = []
    /// The service name the subtypes point at.
    private var subtypesFor: String?
    private var lifecycle = AvahiClientLifecycle()
    private var publisher: ServicePublisher
    private var resolverLimitLogged = false
    /// The renamed name we browsed again for (``browseAgainAfterRename()``).
    private var rebrowsedFor: String?
    /// When to try avahi-daemon again, while it is away (checked on ``tick(now:)``).
    private var retryAt: Date?
    private let clock: DaemonClock
    private var stopped = false
    /// The identity actor's changes, in order (given at init).
    private let onChanges: @MainActor ([PeerChange]) -> Void
    /// Rows the identity actor may not evict (given at init).
    private let protectedRows: @MainActor () -> Set<UUID>
    /// Wide-area DNS-SD beside mDNS (`--wide-area`, issue 46): it gets the
    /// apps' TXT and subtypes as Avahi does, and stops with discovery.
    package var wideArea: WideAreaCoordinator?
    /// Rows known from mDNS alone, as of the last change.
    package private(set) var unverifiedPeers = 0

    /// A coordinator for `avahi`, whose callbacks arrive on `events`.
    /// `maxResolvers` bounds open resolvers (Avahi's per-client object
    /// limit is 1024 by default).
    package init(avahi: AvahiController, events: AsyncStream<AvahiBridgeEvent>, identity: IdentityActor, lane: IdentityLane,
                logger: Logger, name: String, serviceType: String, interfaceIndexes: [Int32], txt: TXTRecord, port: UInt16,
                ownPeerID: String, maxResolvers: Int, clock: DaemonClock, protectedRows: @escaping @MainActor () -> Set<UUID>,
                onChanges: @escaping @MainActor ([PeerChange]) -> Void) {
        self.onChanges = onChanges
        self.protectedRows = protectedRows
        self.avahi = avahi
        self.events = events
        self.identity = identity
        self.lane = lane
        self.clock = clock
        self.logger = logger
        self.serviceType = serviceType
        self.interfaceIndexes = interfaceIndexes
        self.txt = txt
        self.port = port
        self.ownPeerID = ownPeerID
        self.maxResolvers = maxResolvers
        publisher = ServicePublisher(name: name)
    }

    /// The name this host is published under now (after any collision rename).
    package var name: String { publisher.name }
    /// The name asked for.
    package var requestedName: String { publisher.requestedName }
    /// Where the publication stands.
    package var publication: PublicationState { publisher.state }
    /// Where the link to avahi-daemon stands.
    package var avahiStatus: AvahiStatus { lifecycle.status }
    /// Words for `status`: why Avahi or the publication is not running.
    package var statusMessage: String? {
        if publisher.state == .failed { return publisher.failure }
        if lifecycle.status == .waitingForDaemon { return "avahi-daemon is not running; peerd connects when it starts" }
        return lifecycle.lastMessage
    }

    /// Creates the Avahi client (its events wait in the stream for ``pump()``).
    package func start() {
        perform(lifecycle.start())
    }

    /// Hands the bridge's events to the lane, one job each, so they reach
    /// the identity actor in exactly Avahi's order. Returns when the stream
    /// ends (``shutdown()``).
    package func pump() async {
        for await event in events {
            lane.submit { [weak self] in await self?.route(event) }
        }
    }

    /// Clock tick: a retry of avahi-daemon that is due.
    package func tick(now: Date) {
        guard let retryAt, now >= retryAt, !stopped else { return }
        self.retryAt = nil
        perform(lifecycle.retryDue())
    }

    /// The apps registered here changed (``AppRegistry``): their TXT
    /// strings are published in place of the old, and each app's subtype
    /// is added or withdrawn, without resetting the service.
    package func publishApps(txt: [TXTEntry], apps: [AppName]) {
        appTXT = txt
        appSubtypes = Set(apps.map { $0.subtype(of: serviceType) })
        wideArea?.publishApps(txt: txt, baseTXT: self.txt.entries, apps: apps)
        guard publisher.state == .registering || publisher.state == .established else { return }
        if let failure = avahi.updateTXT(name: publisher.name, type: serviceType, txt: self.txt.entries + appTXT, interfaces: interfaceIndexes) {
            logger.warning("cannot update the TXT record: \(failure)")
        }
        syncSubtypes()
    }

    /// Makes Avahi's subtypes the apps', pointing at the name in use.
    private func syncSubtypes() {
        if subtypesFor != publisher.name {
            for subtype in avahi.subtypes { avahi.withdrawSubtype(subtype) }
            subtypesFor = publisher.name
        }
        for subtype in avahi.subtypes.subtracting(appSubtypes) { avahi.withdrawSubtype(subtype) }
        for subtype in appSubtypes.subtracting(avahi.subtypes).sorted() {
            if let failure = avahi.publishSubtype(subtype, name: publisher.name, type: serviceType, interfaces: interfaceIndexes) {
                logger.warning("cannot publish \(subtype): \(failure)")
            }
        }
    }

    /// Stops consuming and frees the client (withdrawing the service).
    package func shutdown() {
        guard !stopped else { return }
        stopped = true
        _ = lifecycle.stop()
        avahi.shutdown()
        wideArea?.shutdown()
    }

    /// Asks the identity actor how many rows are known from mDNS alone.
    package func refreshUnverified() async {
        unverifiedPeers = await identity.unverifiedCount()
    }

    private func perform(_ actions: [AvahiClientAction]) {
        for action in actions {
            switch action {
            case .createClient:
                createClient()
            case .recreateClient:
                publisher.clientLost()
                subtypesFor = nil
                avahi.freeClient()
                logger.warning("lost avahi-daemon (\(lifecycle.lastMessage ?? "failure")); reconnecting")
                createClient()
            case .scheduleRetry(let seconds):
                retryAt = clock.now().addingTimeInterval(TimeInterval(seconds))
            case .startBrowsing:
                do {
                    try avahi.startBrowsing(type: serviceType, interfaces: interfaceIndexes)
                } catch {
                    logger.error("cannot browse \(serviceType): \(error)")
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

    /// After a collision rename, browsing starts over once: Avahi flagged
    /// the service we collided with as our own while our entry group held
    /// its name, and will not announce it again, so only a new browser
    /// (which reports every cached service, that one now not ours) lets
    /// this host list the peer it collided with.
    private func browseAgainAfterRename() {
        guard publisher.name != publisher.requestedName, rebrowsedFor != publisher.name else { return }
        rebrowsedFor = publisher.name
        do {
            try avahi.restartBrowsing(type: serviceType, interfaces: interfaceIndexes)
            logger.debug("browsing again after the rename to '\(publisher.name)'")
        } catch {
            logger.warning("cannot browse \(serviceType) again after the rename: \(error)")
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
                switch avahi.register(name: name, type: serviceType, port: port, txt: txt.entries + appTXT, interfaces: interfaceIndexes) {
                case .committed:
                    logger.debug("registering '\(name)'")
                    syncSubtypes()
                case .collision: perform(publisher.collision())
                case .failed(let message): perform(publisher.failed(message))
                }
            case .reset:
                avahi.resetGroup()
                // The subtypes go with the service, and come back with it.
                for subtype in avahi.subtypes { avahi.withdrawSubtype(subtype) }
                subtypesFor = nil
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
                onChanges(await identity.apply(.daemonLost))
                unverifiedPeers = await identity.unverifiedCount()
            }
            perform(actions)
        case .groupState(_, let state):
            switch state {
            case .established:
                perform(publisher.established())
                browseAgainAfterRename()
            case .collision: perform(publisher.collision())
            case .failure(let message): perform(publisher.failed(message))
            case .pending: break
            }
        case .serviceFound(_, let key, let ourOwn):
            // A name now ours is no peer's: Avahi reports no removal for a
            // key that still exists, so the row of a peer that held it
            // before (renamed after a collision with us) lets it go here.
            guard !ourOwn else { return await forget(key) }
            guard avahi.resolverCount < maxResolvers else {
                if !resolverLimitLogged { logger.warning("\(maxResolvers) services are being resolved; ignoring more until some go away") }
                resolverLimitLogged = true
                return
            }
            if !avahi.startResolver(key) { logger.warning("cannot resolve \(key): Avahi refused a resolver") }
        case .serviceRemoved(_, let key):
            avahi.stopResolver(key)
            resolverLimitLogged = false
            await forget(key)
        case .browserFailed(_, let message):
            logger.error("browsing \(serviceType) failed: \(message)")
        case .resolved(_, let service):
            // Our own service seen through another client (several peerd
            // instances on one avahi-daemon) is still us; a row that held
            // its key before lets it go, as above.
            guard service.advertisedPeerID != ownPeerID else { return await forget(service.key) }
            onChanges(await identity.apply(.resolved(service), protected: protectedRows()))
            unverifiedPeers = await identity.unverifiedCount()
        case .resolveFailed(_, let key, let message):
            logger.debug("resolving \(key) failed: \(message)")
            avahi.stopResolver(key)
        }
    }

    /// Takes service `key` away from the row that holds it, if any (gone,
    /// or now ours), and recounts the unverified rows: a lost row no
    /// longer counts against their cap.
    private func forget(_ key: ServiceKey) async {
        onChanges(await identity.apply(.removed(key)))
        unverifiedPeers = await identity.unverifiedCount()
    }
}
