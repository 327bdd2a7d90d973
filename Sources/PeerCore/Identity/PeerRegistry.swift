package import FoundationEssentials
package import PeerProtocol

/// The pure logic of the identity actor: turns discovery events into peer rows.
///
/// Rules it keeps:
/// - a peer is keyed by its advertised `id`, or by instance name without one;
/// - every service key (interface × family) of a peer merges into its one row;
/// - a row, once made, never leaves: its last endpoint going marks it `lost`,
///   and its return revives the same row and UUID;
/// - at most `maxPeers` rows, so a flood of fake services cannot eat memory;
/// - at most `maxUnverified` present rows that no handshake has verified
///   (made from mDNS alone), so such a flood cannot take the rows that peers
///   who prove their keys (paired peers, peers that connect) still get;
/// - when a new peer needs a row and the table is full, the least recently
///   seen row with no endpoints, no session and no pairing (the caller
///   names the protected rows) is evicted; its UUID is remembered, so a
///   peer that returns gets its old UUID back;
/// - a row whose key a handshake proved, or that is trusted, takes no name
///   or info from mDNS: an advertiser with no proof cannot rename it.
///
/// UUIDs are not made here: the caller passes `makeID`, and the only caller
/// that makes real ones is ``IdentityActor``.
package struct PeerRegistry: Sendable {
    /// The largest number of rows kept.
    package let maxPeers: Int
    /// The largest number of rows that no handshake has verified.
    package let maxUnverified: Int
    /// Present rows made from mDNS alone whose key no handshake has proven yet.
    package var unverifiedCount: Int { unverified.filter { records[$0]?.lost == false }.count }

    private var records: [UUID: PeerRecord] = [:]
    private var order: [UUID] = []
    private var idByKey: [PeerKey: UUID] = [:]
    private var ownerByService: [ServiceKey: UUID] = [:]
    private var rejectedKeys: Set<PeerKey> = []
    private var unverified: Set<UUID> = []
    /// Rows of peers trusted at start (the trust store); never evicted.
    private var trusted: Set<UUID> = []
    /// Service keys whose endpoint failed the identity check: not merged
    /// into the row again until Avahi removes the service.
    private var refusedServices: Set<ServiceKey> = []
    /// UUIDs of evicted rows by key, oldest first, at most `4 × maxPeers`.
    private var evictedIDs: [PeerKey: UUID] = [:]
    private var evictionOrder: [PeerKey] = []

    /// Creates a registry holding at most `maxPeers` rows, of which at most
    /// `maxUnverified` (default: all) unverified, with a verified row (lost,
    /// no endpoints) for each known peer under its stored UUID.
    package init(maxPeers: Int, maxUnverified: Int? = nil, known: [KnownPeer] = [], now: Date = Date(timeIntervalSince1970: 0)) {
        self.maxPeers = max(1, maxPeers, known.count)
        self.maxUnverified = max(1, min(maxUnverified ?? maxPeers, self.maxPeers))
        for peer in known where idByKey[.peerID(peer.peerID)] == nil {
            idByKey[.peerID(peer.peerID)] = peer.uuid
            order.append(peer.uuid)
            records[peer.uuid] = PeerRecord(id: peer.uuid, key: .peerID(peer.peerID), name: peer.name, lastSeen: now, lost: true)
            trusted.insert(peer.uuid)
        }
    }

    /// Every row, in the order peers were first seen.
    package var snapshots: [PeerSnapshot] { order.compactMap { records[$0]?.snapshot } }

    /// The number of rows.
    package var count: Int { order.count }

    /// One row by UUID.
    package func snapshot(for id: UUID) -> PeerSnapshot? { records[id]?.snapshot }

    /// The UUID of the row for `key`, if there is one.
    package func id(for key: PeerKey) -> UUID? { idByKey[key] }

    /// Applies one discovery event and returns what changed, in order.
    /// `protected` rows (paired, or with a session) are never evicted.
    package mutating func apply(_ event: DiscoveryEvent, now: Date, protected: Set<UUID> = [], makeID: () -> UUID) -> [PeerChange] {
        switch event {
        case .resolved(let service): return resolve(service, now: now, protected: protected, makeID: makeID)
        case .removed(let key): return remove(key, now: now)
        case .daemonLost: return forgetAllServices(now: now)
        }
    }

    /// The row for a peer that proved `peerID` in a handshake on a
    /// connection it made: its discovered row, now verified, or a new
    /// verified row with no endpoints. Nil at the peer cap.
    package mutating func adopt(peerID: String, name: String, now: Date, protected: Set<UUID> = [],
                               makeID: () -> UUID) -> (snapshot: PeerSnapshot, changes: [PeerChange])? {
        let key = PeerKey.peerID(peerID)
        if let id = idByKey[key], let record = records[id] {
            unverified.remove(id)
            return (record.snapshot, [])
        }
        var changes: [PeerChange] = []
        if order.count >= maxPeers {
            guard let evicted = evictOne(protected: protected) else { return nil }
            changes.append(evicted)
        }
        let id = reuseOrMake(key, makeID)
        idByKey[key] = id
        order.append(id)
        let record = PeerRecord(id: id, key: key, name: name, lastSeen: now, lost: false)
        records[id] = record
        return (record.snapshot, changes + [.found(record.snapshot)])
    }

    /// The endpoint `endpoint` of row `id` failed the identity check (it
    /// proved another key): the services behind it leave the row and are
    /// not merged again until Avahi removes them. Returns the row's change.
    package mutating func refuseEndpoint(_ endpoint: Endpoint, of id: UUID, now: Date) -> [PeerChange] {
        guard let record = records[id] else { return [] }
        var changes: [PeerChange] = []
        for (key, service) in record.services where service.endpoint == endpoint {
            refusedServices.insert(key)
            changes += detach(key, from: id, now: now)
        }
        return changes
    }

    /// The name of a row made for a peer that connected before it was
    /// discovered: `peer-` and the first 8 digits of its id.
    package static func placeholderName(for key: PeerKey) -> String {
        switch key {
        case .peerID(let id): return "peer-" + String(id.prefix(8))
        case .instanceName(let name): return name
        }
    }

    /// Whether the row for `id` is proven (a handshake showed its key) or trusted.
    package func isProven(_ id: UUID) -> Bool { records[id] != nil && !unverified.contains(id) }

    /// The least recently seen row with no endpoints that is not protected,
    /// removed; its UUID is remembered for its return.
    private mutating func evictOne(protected: Set<UUID>) -> PeerChange? {
        let candidates = order.compactMap { records[$0] }.filter { $0.services.isEmpty && !protected.contains($0.id) && !trusted.contains($0.id) }
        guard let victim = candidates.min(by: { $0.lastSeen < $1.lastSeen }) else { return nil }
        records[victim.id] = nil
        order.removeAll { $0 == victim.id }
        idByKey[victim.key] = nil
        unverified.remove(victim.id)
        if evictedIDs.updateValue(victim.id, forKey: victim.key) == nil { evictionOrder.append(victim.key) }
        if evictionOrder.count > maxPeers * 4 { evictedIDs[evictionOrder.removeFirst()] = nil }
        return .evicted(victim.snapshot)
    }

    /// The UUID an evicted row had under `key`, or a new one.
    private mutating func reuseOrMake(_ key: PeerKey, _ makeID: () -> UUID) -> UUID {
        guard let id = evictedIDs.removeValue(forKey: key) else { return makeID() }
        evictionOrder.removeAll { $0 == key }
        return id
    }

    /// A handshake proved `peerID` (we dialled it): its row no longer
    /// counts against the unverified cap.
    package mutating func markVerified(peerID: String) {
        if let id = idByKey[.peerID(peerID)] { unverified.remove(id) }
    }

    /// A session with the peer that proved `peerID` reached it at
    /// `address`, and the peer called itself `name` inside the session (in
    /// its `invite` or `accept`). The address is kept as learned; the name
    /// replaces only a placeholder (`peer-…`) on a row mDNS has not named,
    /// so a session never renames a peer that advertises itself.
    package mutating func learned(peerID: String, name: String?, address: String?) -> [PeerChange] {
        guard let id = idByKey[.peerID(peerID)], var record = records[id] else { return [] }
        let before = record.snapshot
        if let address { record.learnedAddress = address }
        if let name, !name.isEmpty, record.services.isEmpty, record.name == Self.placeholderName(for: record.key) { record.name = name }
        records[id] = record
        return record.snapshot == before ? [] : [.updated(record.snapshot)]
    }

    private mutating func resolve(_ service: ResolvedService, now: Date, protected: Set<UUID>, makeID: () -> UUID) -> [PeerChange] {
        var changes: [PeerChange] = []
        let key = service.peerKey
        guard !refusedServices.contains(service.key) else { return [] }
        // The same service key may now advertise another id: detach it first.
        if let previous = ownerByService[service.key], records[previous]?.key != key {
            changes += detach(service.key, from: previous, now: now)
        }
        let id: UUID
        if let known = idByKey[key] {
            id = known
        } else {
            if order.count >= maxPeers || unverifiedCount >= maxUnverified, let evicted = evictOne(protected: protected) {
                changes.append(evicted)
            }
            guard order.count < maxPeers, unverifiedCount < maxUnverified else {
                // Reported once per peer, however often its services resolve.
                // The memory of turned-away keys is itself bounded: past
                // 4 × maxPeers it starts over (the count may then repeat one).
                if rejectedKeys.count >= maxPeers * 4 { rejectedKeys.removeAll(keepingCapacity: true) }
                guard rejectedKeys.insert(key).inserted else { return changes }
                return changes + [.rejectedAtCap(key, unverified: order.count < maxPeers)]
            }
            id = reuseOrMake(key, makeID)
            idByKey[key] = id
            order.append(id)
            unverified.insert(id)
            records[id] = PeerRecord(id: id, key: key, name: service.key.name, lastSeen: now, lost: true)
        }
        guard var record = records[id] else { return changes }
        let before = record.snapshot
        let wasLost = record.lost
        record.services[service.key] = service
        ownerByService[service.key] = id
        // Name and info of a proven or trusted row come from proof (the
        // trust store, a handshake), never from an advertisement.
        // A proven row adopted from a connection, still under its
        // placeholder name, takes its first advertised name.
        if !isProven(id) || record.name == Self.placeholderName(for: key) {
            record.name = service.key.name
            record.info = Self.info(of: service)
        }
        record.lastSeen = now
        record.lost = false
        records[id] = record
        let after = record.snapshot
        if wasLost {
            changes.append(.found(after))
        } else if Self.differs(before, after) {
            changes.append(.updated(after))
        }
        return changes
    }

    private mutating func remove(_ key: ServiceKey, now: Date) -> [PeerChange] {
        refusedServices.remove(key)
        guard let owner = ownerByService[key] else { return [] }
        return detach(key, from: owner, now: now)
    }

    private mutating func detach(_ key: ServiceKey, from owner: UUID, now: Date) -> [PeerChange] {
        ownerByService[key] = nil
        guard var record = records[owner] else { return [] }
        let before = record.snapshot
        guard record.services.removeValue(forKey: key) != nil else { return [] }
        if record.services.isEmpty {
            record.lost = true
            record.lastSeen = now
            records[owner] = record
            return [.lost(record.snapshot)]
        }
        // A row named after the service it just lost takes the name and
        // info of one it still has (the first by key, so the choice does
        // not depend on the order events came in): after a collision
        // rename the old name's key can outlive the service it named, and
        // the row must not keep it. A proven row's name is not an
        // advertisement's and stays.
        if !isProven(owner) || record.name == Self.placeholderName(for: record.key),
           record.name == key.name, let next = record.services.keys.min(by: { $0.description < $1.description }),
           let service = record.services[next] {
            record.name = next.name
            record.info = Self.info(of: service)
        }
        records[owner] = record
        return Self.differs(before, record.snapshot) ? [.updated(record.snapshot)] : []
    }

    private mutating func forgetAllServices(now: Date) -> [PeerChange] {
        var changes: [PeerChange] = []
        // Avahi's services alone: those found through DNS stay (issue 46).
        for key in ownerByService.keys.filter({ !$0.isWideArea }).sorted(by: { $0.description < $1.description }) {
            if let owner = ownerByService[key] { changes += detach(key, from: owner, now: now) }
        }
        return changes
    }

    /// Whether a client would see a difference (lastSeen alone is not news).
    /// A service's TXT as a row's info (the first of a repeated key wins).
    private static func info(of service: ResolvedService) -> [String: String] {
        Dictionary(service.txt.map { ($0.key, $0.value) }, uniquingKeysWith: { first, _ in first })
    }

    private static func differs(_ a: PeerSnapshot, _ b: PeerSnapshot) -> Bool {
        a.endpoints != b.endpoints || a.info != b.info || a.name != b.name || a.lost != b.lost
    }
}
