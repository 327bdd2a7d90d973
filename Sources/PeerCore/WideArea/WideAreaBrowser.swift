package import FoundationEssentials
internal import PeerProtocol

/// Decides how peerd browses one wide-area domain (issue 46): it asks the
/// zone's serial every poll (one small query), lists the service type's
/// pointers when the serial changed (or a TTL has passed), resolves each new
/// instance, looks at each again when its lease or TTL ends, and reports
/// what it found as the discovery events Avahi's bridge gives. A pure
/// instance: the shell performs the ``Action``s and reports back.
///
/// Bounded: at most `maxInstances` names are followed and at most
/// ``maxResolving`` lookups are in flight; a flood of foreign pointers
/// costs a warning, not memory (and the identity actor's unverified cap
/// holds the rows).
package struct WideAreaBrowser: Sendable {
    /// What the shell does next.
    package enum Action: Equatable, Sendable {
        /// Ask the zone's SOA serial.
        case querySerial
        /// List the pointers at this name.
        case list(DNSName)
        /// Look up this instance (SRV, TXT, the target's addresses).
        case resolve(String)
        /// Hand this to the identity actor.
        case discovery(DiscoveryEvent)
        /// Say this in the log, as a warning.
        case warn(String)
    }

    private struct Followed: Sendable {
        var services: [ServiceKey: ResolvedService] = [:]
        var nextCheck: Date
        var resolving = false
    }

    /// The most lookups in flight at once.
    package static let maxResolving = 8

    /// The domain browsed.
    package let domain: DNSName
    private let serviceType: String
    private let ownPeerID: String
    private let maxInstances: Int
    private let poll: TimeInterval
    private let relist: TimeInterval
    private var lastSerial: UInt32?
    private var polling = false
    /// Lists asked this round and not answered yet (the service type's,
    /// and each app subtype's), and the names they gave so far.
    private var listing = 0
    private var roundNames: [String] = []
    private var roundFailed = false
    /// The apps' subtypes (`_chat._sub._peerd._tcp`) whose pointers are
    /// read beside the service type's (``browseSubtypes(_:)``).
    private var subtypes: [String] = []
    private var nextPoll: Date?
    private var nextList: Date?
    private var followed: [String: Followed] = [:]
    private var capWarned = false

    /// A browser of `serviceType` in `domain`: the serial is asked every
    /// `poll` seconds, the list read at least every `relist` seconds.
    package init(domain: DNSName, serviceType: String, ownPeerID: String, maxInstances: Int, poll: TimeInterval, relist: TimeInterval) {
        self.domain = domain
        self.serviceType = serviceType
        self.ownPeerID = ownPeerID
        self.maxInstances = maxInstances
        self.poll = poll
        self.relist = relist
    }

    /// How many instances resolved to at least one address.
    package var peerCount: Int { followed.values.filter { !$0.services.isEmpty }.count }
    /// How many names are followed.
    package var followedCount: Int { followed.count }

    /// Clock tick: the poll and the lookups that are due.
    package mutating func tick(now: Date) -> [Action] {
        var actions: [Action] = []
        if !polling, listing == 0, nextPoll.map({ now >= $0 }) ?? true {
            polling = true
            // From the ask, not the answer, less a tenth for a timer's
            // jitter: a timer of the poll's period then finds every poll
            // due (measured: from the answer, every other one was).
            nextPoll = now.addingTimeInterval(poll * 0.9)
            actions.append(.querySerial)
        }
        var inFlight = followed.values.filter(\.resolving).count
        for name in followed.keys.sorted() where inFlight < Self.maxResolving {
            guard let entry = followed[name], !entry.resolving, now >= entry.nextCheck else { continue }
            followed[name]?.resolving = true
            inFlight += 1
            actions.append(.resolve(name))
        }
        return actions
    }

    /// The serial's answer (nil: no answer).
    package mutating func serial(_ serial: UInt32?, now: Date) -> [Action] {
        polling = false
        let changed = serial != nil && serial != lastSerial
        let due = nextList.map { now >= $0 } ?? true
        guard changed || due, let service = serviceName else { return [] }
        if serial != nil { lastSerial = serial }
        // The service type's pointers name every instance of a publisher
        // that follows RFC 6763; an app's subtype may name one that lists
        // itself there alone.
        let names = [service] + subtypes.compactMap { DNSName(dotted: $0).flatMap { $0.appending(domain) } }
        listing = names.count
        roundNames = []
        roundFailed = false
        return names.map { .list($0) }
    }

    /// Reads the pointers of these app subtypes too, from the next list on
    /// (the apps registered on this host, as they come and go).
    package mutating func browseSubtypes(_ subtypes: [String]) {
        self.subtypes = subtypes.sorted()
    }

    /// One list's answer, in the order they were asked: the instance names
    /// its pointers name (nil: no answer). The round's names are taken
    /// together once every list of it has answered; a round with a list
    /// that failed removes nothing.
    package mutating func listed(_ answer: [String]?, now: Date) -> [Action] {
        guard listing > 0 else { return [] }
        listing -= 1
        if let answer { roundNames += answer.filter { !roundNames.contains($0) } } else { roundFailed = true }
        guard listing == 0 else { return [] }
        nextList = now.addingTimeInterval(relist)
        let names: [String]? = roundFailed ? nil : roundNames
        roundNames = []
        guard let names else {
            // Ask again at the next poll rather than after a whole TTL.
            nextList = now
            lastSerial = nil
            return []
        }
        var actions: [Action] = []
        let present = Set(names)
        for name in followed.keys.sorted() where !present.contains(name) {
            actions += forget(name)
        }
        var refused = 0
        for name in names.sorted() where followed[name] == nil {
            guard followed.count < maxInstances else { refused += 1; continue }
            followed[name] = Followed(nextCheck: now)
        }
        if refused > 0, !capWarned {
            capWarned = true
            actions.append(.warn("\(domain): following \(maxInstances) instances; \(refused) more are ignored until some go"))
        }
        if refused == 0 { capWarned = false }
        return actions + tick(now: now)
    }

    /// An instance's lookup (nil: it has no SRV, or no answer).
    package mutating func resolved(_ name: String, _ instance: WideAreaInstance?, now: Date) -> [Action] {
        guard var entry = followed[name] else { return [] }
        entry.resolving = false
        let unixNow = UInt64(max(0, now.timeIntervalSince1970))
        var services: [ServiceKey: ResolvedService] = [:]
        var nextCheck = now.addingTimeInterval(relist)
        if let instance, instance.leaseEnds.map({ $0 > unixNow }) ?? true {
            let entries = instance.entries
            let shown = instance.displayName(label: name)
            for family in [AddressFamily.ipv4, .ipv6] {
                guard let address = instance.addresses.first(where: { $0.family == family }) else { continue }
                let key = ServiceKey(interfaceIndex: ServiceKey.wideAreaInterface, family: family, name: shown, type: serviceType, domain: domain.description)
                services[key] = ResolvedService(key: key, interfaceName: "", hostName: instance.target.description, address: address.text,
                                                addressFamily: family, port: instance.port, txt: entries)
            }
            if services.values.first?.advertisedPeerID == ownPeerID { services = [:] }
            let ttlEnd = now.addingTimeInterval(TimeInterval(max(instance.ttl, 1)))
            if let lease = instance.leaseEnds {
                nextCheck = min(ttlEnd, Date(timeIntervalSince1970: TimeInterval(lease)))
            } else {
                nextCheck = ttlEnd
            }
        }
        var actions: [Action] = []
        for key in entry.services.keys.sorted(by: { $0.description < $1.description }) where services[key] == nil {
            actions.append(.discovery(.removed(key)))
        }
        for (key, service) in services.sorted(by: { $0.key.description < $1.key.description }) where entry.services[key] != service {
            actions.append(.discovery(.resolved(service)))
        }
        entry.services = services
        entry.nextCheck = nextCheck
        followed[name] = entry
        return actions
    }

    /// Stops: every instance found is reported gone.
    package mutating func stop() -> [Action] {
        var actions: [Action] = []
        for name in followed.keys.sorted() { actions += forget(name) }
        return actions
    }

    private var serviceName: DNSName? { DNSName(dotted: serviceType).flatMap { $0.appending(domain) } }

    private mutating func forget(_ name: String) -> [Action] {
        guard let entry = followed.removeValue(forKey: name) else { return [] }
        return entry.services.keys.sorted(by: { $0.description < $1.description }).map { .discovery(.removed($0)) }
    }
}
