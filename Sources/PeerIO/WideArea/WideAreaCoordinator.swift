import Dispatch
import FoundationEssentials
import PeerCore
import PeerProtocol
import PeerSystem

/// Wide-area DNS-SD (issue 46): browsing a unicast DNS domain and
/// publishing this host there, beside Avahi's mDNS.
///
/// It runs the pure ``WideAreaBrowser`` and ``WideAreaPublisher`` by
/// performing their actions on the ``WideAreaLink`` (ldns, on a thread of
/// its own), drains the link's stream of answers in order (the shape of
/// the Avahi bridge), and hands what the browser found to the same
/// ``IdentityActor`` through the same ``IdentityLane`` as mDNS: a host
/// seen both ways is one row, one UUID.
@MainActor
package final class WideAreaCoordinator {
    private let settings: WideAreaSettings
    private let link: WideAreaLink
    private let events: AsyncStream<WideAreaBridgeEvent>
    private let identity: IdentityActor
    private let lane: IdentityLane
    private let logger: Logger
    private let clock: DaemonClock
    private let ownPeerID: String
    private let serviceType: String
    private let protectedRows: @MainActor () -> Set<UUID>
    private let onChanges: @MainActor ([PeerChange]) -> Void
    /// Counts the unverified rows again after a change (status shows the count).
    private let recount: @MainActor () async -> Void
    /// One browser a domain: the configured one first (through its server),
    /// then those the search domains name (through the host's resolvers).
    private var browsers: [DNSName: WideAreaBrowser] = [:]
    private var browseOrder: [DNSName] = []
    private var publisher: WideAreaPublisher?
    /// What this host would publish (kept current while the server is sought).
    private var publication: WideAreaPublication
    private var server: String?
    private var zone: DNSName?
    private var serverError: String?
    private var connecting = false
    private var retryAt: Date?
    private var timer: (any DispatchSourceTimer)?
    private var stopped = false
    private var addressesCheckedAt: Date?

    /// A coordinator for `settings`, publishing `name` on `port` with `txt`.
    package init(settings: WideAreaSettings, identity: IdentityActor, lane: IdentityLane, logger: Logger, clock: DaemonClock, ownPeerID: String,
                name: String, serviceType: String, port: UInt16, txt: [TXTEntry],
                protectedRows: @escaping @MainActor () -> Set<UUID>, onChanges: @escaping @MainActor ([PeerChange]) -> Void,
                recount: @escaping @MainActor () async -> Void) {
        self.settings = settings
        self.recount = recount
        let (stream, continuation) = AsyncStream.makeStream(of: WideAreaBridgeEvent.self, bufferingPolicy: .unbounded)
        events = stream
        link = WideAreaLink(continuation: continuation)
        self.identity = identity
        self.lane = lane
        self.logger = logger
        self.clock = clock
        self.ownPeerID = ownPeerID
        self.serviceType = serviceType
        self.protectedRows = protectedRows
        self.onChanges = onChanges
        publication = WideAreaPublication(instance: name, serviceType: serviceType, domain: settings.domain,
                                          hostLabel: "peerd-" + String(ownPeerID.prefix(16)), port: port, txt: txt,
                                          addresses: Self.routableAddresses(), subtypes: [], ttl: UInt32(settings.ttl))
    }

    /// Finds the server, then browses (and publishes), polling on a timer
    /// of its own: the daemon's one-second tick is too slow for the serial.
    package func start() {
        connect()
        let timer = DispatchSource.makeTimerSource(queue: .main)
        timer.schedule(deadline: .now() + settings.poll, repeating: settings.poll)
        timer.setEventHandler { [weak self] in MainActor.assumeIsolated { self?.tick() } }
        self.timer = timer
        timer.resume()
    }

    /// Drains the link's answers in order. Returns when ``shutdown()`` ends the stream.
    package func pump() async {
        for await event in events { route(event) }
    }

    /// The apps registered here changed: their TXT strings and subtypes are
    /// published with this host's (as on mDNS).
    package func publishApps(txt: [TXTEntry], baseTXT: [TXTEntry], apps: [AppName]) {
        var next = publication
        next.txt = baseTXT + txt
        next.subtypes = apps.map { $0.subtype(of: serviceType) }.sorted()
        update(next)
        // The same apps' subtypes are browsed, as the domains' lists are read.
        for domain in browseOrder { browsers[domain]?.browseSubtypes(next.subtypes) }
    }

    /// Takes this host's records away (waiting for the server's answer, or
    /// its timeout: a few seconds at most, since the lookups still queued
    /// are dropped) and ends the stream.
    package func shutdown() {
        guard !stopped else { return }
        stopped = true
        timer?.cancel()
        link.cancelLookups()
        if var publisher {
            let actions = publisher.stop()
            self.publisher = publisher
            perform(actions)
            link.drain()
        }
        link.finish()
    }

    /// `status`'s part.
    package var status: WideAreaStatus {
        WideAreaStatus(domain: settings.domain.description, server: server, zone: zone?.description, serverError: serverError,
                       publication: settings.key == nil ? "off" : (publisher?.phase.rawValue ?? "checking"),
                       name: settings.key == nil ? nil : (publisher?.instance ?? publication.instance),
                       lastUpdate: publisher?.lastResult, lastUpdateAt: publisher?.lastResultAt,
                       peers: browsers.values.reduce(0) { $0 + $1.peerCount }, followed: browsers.values.reduce(0) { $0 + $1.followedCount },
                       browseDomains: browseOrder.map(\.description))
    }

    private func connect() {
        connecting = true
        link.connect(domain: settings.domain, server: settings.server.map { .given(address: $0.address, port: $0.port) } ?? .discovered)
    }

    private func tick() {
        guard !stopped else { return }
        let now = clock.now()
        if browsers.isEmpty {
            if !connecting, let retryAt, now >= retryAt {
                self.retryAt = nil
                connect()
            }
            return
        }
        // Addresses come and go (DHCP, a cable): looked at every few seconds.
        if addressesCheckedAt.map({ now.timeIntervalSince($0) >= 5 }) ?? true {
            addressesCheckedAt = now
            var next = publication
            next.addresses = Self.routableAddresses()
            update(next)
        }
        for domain in browseOrder where link.hasRoom {
            runBrowser(domain) { $0.tick(now: now) }
        }
        if var publisher {
            let actions = publisher.tick(now: now)
            self.publisher = publisher
            perform(actions)
        }
    }

    private func update(_ next: WideAreaPublication) {
        guard next != publication else { return }
        if settings.key != nil, next.addresses.isEmpty, !publication.addresses.isEmpty {
            logger.warning("wide-area \(settings.domain): this host has no routable address now; its records name none, so hosts beyond this link cannot reach it")
        }
        publication = next
        guard var publisher else { return }
        let actions = publisher.changed(next, now: clock.now())
        self.publisher = publisher
        perform(actions)
    }

    private func route(_ event: WideAreaBridgeEvent) {
        guard !stopped || { if case .updated = event { true } else { false } }() else { return }
        let now = clock.now()
        switch event {
        case .ready(let server, let zone, let others):
            connecting = false
            self.server = server
            self.zone = zone
            serverError = nil
            logger.info("wide-area \(settings.domain): server \(server), zone \(zone)\(settings.key == nil ? "; browsing only (no --dns-update-key)" : "")"
                        + (others.isEmpty ? "" : "; also browsing \(others.map(\.description).joined(separator: ", ")) (the search domains' b._dns-sd._udp)"))
            // The unverified cap is shared: each domain follows at most its share.
            let share = max(1, settings.maxInstances / (1 + others.count))
            browseOrder = [settings.domain] + others
            for domain in browseOrder {
                defer { browsers[domain]?.browseSubtypes(publication.subtypes) }
                browsers[domain] = WideAreaBrowser(domain: domain, serviceType: serviceType, ownPeerID: ownPeerID,
                                                   maxInstances: domain == settings.domain ? settings.maxInstances - share * others.count : share,
                                                   poll: settings.poll, relist: TimeInterval(settings.ttl))
            }
            if settings.key != nil {
                if publication.addresses.isEmpty {
                    logger.warning("wide-area \(settings.domain): this host has no routable address (only loopback or link-local); its records name none, so hosts beyond this link cannot reach it")
                }
                var publisher = WideAreaPublisher(zone: zone, desired: publication, ownPeerID: ownPeerID)
                let actions = publisher.start()
                self.publisher = publisher
                perform(actions)
            }
            tick()
        case .unreachable(let why):
            connecting = false
            if serverError != why { logger.warning("wide-area \(settings.domain): \(why); trying again every 10 s") }
            serverError = why
            retryAt = now.addingTimeInterval(10)
        case .serial(let domain, let serial):
            runBrowser(domain) { $0.serial(serial, now: now) }
        case .listed(let domain, let names):
            runBrowser(domain) { $0.listed(names, now: now) }
        case .resolved(let domain, let name, let instance):
            runBrowser(domain) { $0.resolved(name, instance, now: now) }
        case .nameChecked(let check):
            runPublisher { $0.nameChecked(check, now: now) }
        case .updated(let result):
            runPublisher { $0.updated(result, now: now) }
        }
    }

    private func runBrowser(_ domain: DNSName, _ step: (inout WideAreaBrowser) -> [WideAreaBrowser.Action]) {
        guard var browser = browsers[domain] else { return }
        let actions = step(&browser)
        browsers[domain] = browser
        perform(actions, in: domain)
    }

    private func runPublisher(_ step: (inout WideAreaPublisher) -> [WideAreaPublisher.Action]) {
        guard var publisher else { return }
        let actions = step(&publisher)
        self.publisher = publisher
        perform(actions)
    }

    private func perform(_ actions: [WideAreaBrowser.Action], in domain: DNSName) {
        guard let zone else { return }
        // The configured domain through its server; the others through the host's resolvers.
        let primary = domain == settings.domain
        let via: WideAreaLink.Via = primary ? .server : .system
        for action in actions {
            switch action {
            case .querySerial: link.querySerial(domain, zone: primary ? zone : domain, via: via)
            case .list(let owner):
                if let service = DNSName(dotted: serviceType)?.appending(domain) {
                    link.list(domain, owner, of: service, limit: settings.maxInstances * 2, via: via)
                }
            case .resolve(let name):
                if let service = DNSName(dotted: serviceType)?.appending(domain) { link.resolve(domain, name, of: service, via: via) }
            case .discovery(let event):
                lane.submit { [weak self] in
                    guard let self else { return }
                    self.onChanges(await self.identity.apply(event, protected: self.protectedRows()))
                    await self.recount()
                }
            case .warn(let words): logger.warning("wide-area \(words)")
            }
        }
    }

    private func perform(_ actions: [WideAreaPublisher.Action]) {
        for action in actions {
            switch action {
            case .checkName(let name): link.checkName(name)
            case .send(let update): link.send(update, key: settings.key)
            case .renamed(let old, let new):
                logger.notice("wide-area \(settings.domain): the name '\(old)' is another host's; published as '\(new)'")
            case .warn(let words): logger.warning(words)
            }
        }
    }

    /// This host's addresses that mean something beyond their link: no
    /// loopback, no IPv4 link-local (169.254/16), no IPv6 link-local (fe80::/10).
    private static func routableAddresses() -> [WideAreaPublication.HostAddress] {
        var seen: Set<WideAreaPublication.HostAddress> = []
        for row in HostAddresses.read() {
            guard let text = row.address?.split(separator: "%").first.map(String.init) else { continue }
            let address = WideAreaPublication.HostAddress(family: text.contains(":") ? .ipv6 : .ipv4, text: text)
            if WideAreaPublication.isRoutable(address) { seen.insert(address) }
        }
        return seen.sorted()
    }
}
