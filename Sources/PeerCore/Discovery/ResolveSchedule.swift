import FoundationEssentials

/// When each discovered service is resolved, and which services have their
/// TXT record watched: the pure part of discovery's cost as the LAN grows
/// (issue 25, point 5).
///
/// A resolver Avahi keeps open holds an interest in the peer's SRV and
/// address records, whose TTL is 120 s; Avahi then queries for them again
/// before they expire (RFC 6762 §5.2), about 3.6 packets a minute for each
/// peer on each host, which grows with the square of the hosts. So a
/// resolver here is one-shot: it is freed once it answers. What must still
/// arrive at once, a changed TXT record (an app added, a new name), comes
/// through a record browser on the service's TXT record alone, whose TTL is
/// 4,500 s. Addresses and ports are resolved again after
/// ``refreshInterval`` (plus up to half as much again, chosen per host and
/// key from `seed`, so that hosts do not ask in step), and at once when the
/// browser reports the service anew.
///
/// At most ``concurrency`` resolvers run at once and at most ``capacity``
/// services are tracked, so that Avahi's per-client object limit (1,024 by
/// default) holds: each tracked service costs one record browser and, while
/// it resolves, one resolver.
public struct ResolveSchedule: Sendable {
    /// What the shell must do with Avahi's objects.
    public enum Action: Sendable, Equatable {
        /// Start a one-shot resolver for the key.
        case resolve(ServiceKey)
        /// Free the key's resolver.
        case stopResolving(ServiceKey)
        /// Start the record browser on the key's TXT record.
        case watchTXT(ServiceKey)
        /// Free the key's TXT record browser.
        case unwatchTXT(ServiceKey)
    }

    /// Where one tracked service stands.
    enum Phase: Sendable, Equatable {
        /// Found, waiting for a free resolver slot.
        case waiting
        /// A resolver runs.
        case resolving
        /// Resolved or failed; resolved again at the date.
        case resting(until: Date)
    }

    /// The most services tracked.
    public let capacity: Int
    /// The most resolvers running at once.
    public let concurrency: Int
    /// How long a resolved service rests before it is resolved again.
    public let refreshInterval: TimeInterval
    /// How long a service whose resolver failed rests before another try.
    public let retryInterval: TimeInterval
    private let seed: UInt64
    private var phases: [ServiceKey: Phase] = [:]
    /// Keys waiting for a slot, in the order they were found.
    private var queue: [ServiceKey] = []
    private var running = 0

    /// A schedule tracking at most `capacity` services, `concurrency`
    /// resolving at once. `seed` spreads one host's refreshes from another's.
    public init(capacity: Int, concurrency: Int = 32, refreshInterval: TimeInterval = 600, retryInterval: TimeInterval = 60,
                seed: UInt64) {
        self.capacity = max(1, capacity)
        self.concurrency = max(1, concurrency)
        self.refreshInterval = refreshInterval
        self.retryInterval = retryInterval
        self.seed = seed
    }

    /// The number of services tracked.
    public var tracked: Int { phases.count }
    /// The number of resolvers running.
    public var resolving: Int { running }
    /// Whether `key` is tracked.
    public func isTracked(_ key: ServiceKey) -> Bool { phases[key] != nil }

    /// The browser reported `key`. A new key is watched and resolved (or
    /// queued); a tracked one is left as it is (a browser started again
    /// reports every cached service). Nil at capacity: the key is not tracked.
    public mutating func found(_ key: ServiceKey) -> [Action]? {
        switch phases[key] {
        case .waiting, .resolving, .resting:
            return []
        case nil:
            guard phases.count < capacity else { return nil }
            phases[key] = .waiting
            return [.watchTXT(key)] + start(key)
        }
    }

    /// The resolver for `key` answered: it is freed, and the key rests.
    public mutating func resolved(_ key: ServiceKey, now: Date) -> [Action] {
        finish(key, restUntil: now.addingTimeInterval(refreshInterval * (1 + spread(key))))
    }

    /// The resolver for `key` gave up (the service did not answer): it is
    /// freed, and the key is tried again after ``retryInterval``.
    public mutating func failed(_ key: ServiceKey, now: Date) -> [Action] {
        finish(key, restUntil: now.addingTimeInterval(retryInterval * (1 + spread(key))))
    }

    /// The browser says `key` is gone: its resolver and watch are freed.
    public mutating func removed(_ key: ServiceKey) -> [Action] {
        guard let phase = phases.removeValue(forKey: key) else { return [] }
        var actions: [Action] = []
        switch phase {
        case .resolving:
            running -= 1
            actions.append(.stopResolving(key))
        case .waiting:
            queue.removeAll { $0 == key }
        case .resting:
            break
        }
        return actions + [.unwatchTXT(key)] + drain()
    }

    /// The keys whose rest ended by `now`, started while slots are free
    /// (oldest due first; the rest wait in the queue).
    public mutating func due(now: Date) -> [Action] {
        let ready = phases.compactMap { key, phase -> (ServiceKey, Date)? in
            if case .resting(let until) = phase, until <= now { return (key, until) }
            return nil
        }.sorted { $0.1 < $1.1 }
        var actions: [Action] = []
        for (key, _) in ready { actions += start(key) }
        return actions
    }

    /// The Avahi client was freed, and every resolver and watch with it.
    public mutating func reset() {
        phases.removeAll()
        queue.removeAll()
        running = 0
    }

    private mutating func start(_ key: ServiceKey) -> [Action] {
        guard running < concurrency else {
            phases[key] = .waiting
            if !queue.contains(key) { queue.append(key) }
            return []
        }
        queue.removeAll { $0 == key }
        phases[key] = .resolving
        running += 1
        return [.resolve(key)]
    }

    private mutating func finish(_ key: ServiceKey, restUntil: Date) -> [Action] {
        guard phases[key] == .resolving else { return [] }
        running -= 1
        phases[key] = .resting(until: restUntil)
        return [.stopResolving(key)] + drain()
    }

    /// Starts queued keys while slots are free.
    private mutating func drain() -> [Action] {
        var actions: [Action] = []
        while running < concurrency, !queue.isEmpty {
            actions += start(queue[0])
        }
        return actions
    }

    /// A fraction in [0, 0.5) fixed for this host (`seed`) and key: FNV-1a
    /// over the key's text, so that tests can name it and hosts differ.
    private func spread(_ key: ServiceKey) -> Double {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325 ^ seed
        for byte in key.description.utf8 {
            hash ^= UInt64(byte)
            hash = hash &* 0x100_0000_01b3
        }
        return Double(hash % 1_000) / 2_000
    }
}
