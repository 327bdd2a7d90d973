package import FoundationEssentials

/// Decides this host's wide-area publication (issue 46): check that the
/// instance name is free in the domain, publish every record in one signed
/// update, refresh them at half their lease, replace them when anything in
/// them changes, take them away at stop. A pure instance: the shell
/// performs its ``Action``s and reports back; nothing here waits or reads
/// a clock (times come in).
package struct WideAreaPublisher: Sendable {
    /// What the shell does next.
    package enum Action: Hashable, Sendable {
        /// Ask the zone who holds this instance name (its TXT's `id`).
        case checkName(DNSName)
        /// Send this update, signed.
        case send(DNSUpdate)
        /// Another host holds the name: this host is published as `to` now.
        case renamed(from: String, to: String)
        /// Say this in the log, as a warning.
        case warn(String)
    }

    /// Where the publication stands, for `status`.
    package enum Phase: String, Sendable, Codable {
        /// Checking the name.
        case checking
        /// An update is on its way.
        case updating
        /// The zone holds this host's records.
        case published
        /// The server refused the last update (a wrong key, or no right to the zone).
        case refused
        /// The last update got no answer, or failed otherwise; retrying.
        case failed
        /// Stopped: the records were taken away (or are being).
        case stopped
    }

    /// What the name check found.
    package enum NameCheck: Hashable, Sendable {
        /// No records at the name, or this host's own.
        case free
        /// Another host's records (its id, or nil for records that are no peer's).
        case taken(String?)
        /// No answer: try again later.
        case unknown(String)
    }

    /// How an update went.
    package enum UpdateResult: Hashable, Sendable {
        /// The server applied it.
        case applied
        /// The server refused it (NOTAUTH, REFUSED, a bad signature): the words say which.
        case refused(String)
        /// No answer, or another failure.
        case failed(String)
    }

    /// The zone the updates go to.
    package let zone: DNSName
    private let ownPeerID: String
    /// What should be in the zone.
    package private(set) var desired: WideAreaPublication
    /// What the zone holds as of the last applied update.
    package private(set) var published: WideAreaPublication?
    /// Where it stands.
    package private(set) var phase = Phase.checking
    /// The last update's result, in words, and when it came.
    package private(set) var lastResult: String?
    /// When the last result came.
    package private(set) var lastResultAt: Date?
    private var inFlight: WideAreaPublication?
    private var nextAttempt: Date?
    private var failures = 0
    private var renames = 0

    /// The longest wait between two tries after failures, in seconds.
    package static let maxBackoff: TimeInterval = 60
    /// The most renames before giving up (a zone full of our name).
    package static let maxRenames = 32

    /// A publisher of `desired` into `zone`, for the host whose key is `ownPeerID`.
    package init(zone: DNSName, desired: WideAreaPublication, ownPeerID: String) {
        self.zone = zone
        self.desired = desired
        self.ownPeerID = ownPeerID
    }

    /// The name this host is published under (after any rename).
    package var instance: String { desired.instance }

    /// Starts: checks the name first.
    package mutating func start() -> [Action] {
        phase = .checking
        return desired.instanceName.map { [.checkName($0)] } ?? [.warn("the name '\(desired.instance)' does not fit in \(desired.domain)")]
    }

    /// The check's answer.
    package mutating func nameChecked(_ check: NameCheck, now: Date) -> [Action] {
        guard phase == .checking else { return [] }
        switch check {
        case .free:
            return send(now: now)
        case .taken(let holder) where holder == ownPeerID:
            return send(now: now)
        case .taken:
            renames += 1
            guard renames <= Self.maxRenames else {
                phase = .failed
                return record(result: "no free name after \(Self.maxRenames) tries", at: now, retry: false)
            }
            let old = desired.instance
            desired.instance = Self.alternative(to: old)
            return [.renamed(from: old, to: desired.instance)] + (desired.instanceName.map { [.checkName($0)] } ?? [])
        case .unknown(let why):
            return record(result: "cannot check the name: \(why)", at: now, retry: true)
        }
    }

    /// The last update's answer.
    package mutating func updated(_ result: UpdateResult, now: Date) -> [Action] {
        guard let sent = inFlight else { return [] }
        inFlight = nil
        if phase == .stopped {
            lastResult = Self.words(result)
            lastResultAt = now
            return []
        }
        switch result {
        case .applied:
            published = sent
            phase = .published
            failures = 0
            lastResult = "applied"
            lastResultAt = now
            // Half the lease: one lost refresh still leaves time for the next.
            nextAttempt = now.addingTimeInterval(TimeInterval(sent.ttl) / 2)
            return sent == desired ? [] : send(now: now)
        case .refused(let why):
            phase = .refused
            return record(result: "refused: \(why)", at: now, retry: true)
        case .failed(let why):
            phase = .failed
            return record(result: why, at: now, retry: true)
        }
    }

    /// What should be published changed (the TXT, an address, the apps, the port).
    package mutating func changed(_ publication: WideAreaPublication, now: Date) -> [Action] {
        var next = publication
        next.instance = desired.instance
        guard next != desired else { return [] }
        desired = next
        guard phase == .published, inFlight == nil else { return [] }
        return send(now: now)
    }

    /// Clock tick: a refresh or a retry that is due.
    package mutating func tick(now: Date) -> [Action] {
        guard inFlight == nil, phase != .stopped, let due = nextAttempt, now >= due else { return [] }
        nextAttempt = nil
        if published == nil && phase != .refused && phase != .updating {
            phase = .checking
            return desired.instanceName.map { [.checkName($0)] } ?? []
        }
        return send(now: now)
    }

    /// Stops: the records this host published go (nothing when none were).
    package mutating func stop() -> [Action] {
        phase = .stopped
        nextAttempt = nil
        guard let published, let removal = published.removal(zone: zone) else { return [] }
        self.published = nil
        inFlight = published
        return [.send(removal)]
    }

    /// `Name` → `Name #2` → `Name #3`, as Avahi names an mDNS collision's way out.
    package static func alternative(to name: String) -> String {
        if let hash = name.lastIndex(of: "#"), hash > name.startIndex, name[name.index(before: hash)] == " ",
           let number = Int(name[name.index(after: hash)...]), number >= 2 {
            return String(name[..<hash]) + "#\(number + 1)"
        }
        return name + " #2"
    }

    private mutating func send(now: Date) -> [Action] {
        let leaseEnds = UInt64(max(0, now.timeIntervalSince1970)) + UInt64(desired.ttl)
        guard let update = desired.update(zone: zone, leaseEnds: leaseEnds, replacing: published) else {
            phase = .failed
            return record(result: "the records do not fit in \(desired.domain)", at: now, retry: false)
        }
        inFlight = desired
        if phase != .published { phase = .updating }
        return [.send(update)]
    }

    private mutating func record(result: String, at now: Date, retry: Bool) -> [Action] {
        lastResult = result
        lastResultAt = now
        failures += 1
        if retry { nextAttempt = now.addingTimeInterval(min(Self.maxBackoff, Double(1 << min(failures, 6)))) }
        return [.warn("wide-area \(desired.domain): \(result)")]
    }

    private static func words(_ result: UpdateResult) -> String {
        switch result {
        case .applied: "removed"
        case .refused(let why): "refused: \(why)"
        case .failed(let why): why
        }
    }
}
