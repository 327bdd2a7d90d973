import FoundationEssentials

/// Which queued messages go when: the decisions of durable delivery.
///
/// Per peer it remembers the session numbers of the queued messages handed
/// to the current session and not yet acknowledged, oldest first. The
/// queue's messages beyond those go next; an acknowledgement covering them
/// says how many leave the disk; a session that ends forgets them, so they
/// are sent again on the next one (at least once).
public struct QueueFlow: Sendable, Equatable {
    private var inFlight: [UUID: [UInt64]] = [:]

    /// An empty flow.
    public init() {}

    /// Of `pending` queued messages for `peer`, the index of the first one
    /// not yet handed to its session (the ones before it are in flight).
    public func nextIndex(for peer: UUID, pending: Int) -> Int {
        min(inFlight[peer]?.count ?? 0, pending)
    }

    /// The next queued message went out on the session as `number`.
    public mutating func sent(_ number: UInt64, to peer: UUID) {
        inFlight[peer, default: []].append(number)
    }

    /// The peer acknowledged its session's messages 1…`through`. Returns how
    /// many queued messages that covers: they leave the disk, oldest first.
    public mutating func acknowledged(through: UInt64, by peer: UUID) -> Int {
        guard var numbers = inFlight[peer] else { return 0 }
        let done = numbers.prefix { $0 <= through }.count
        numbers.removeFirst(done)
        inFlight[peer] = numbers.isEmpty ? nil : numbers
        return done
    }

    /// The session ended (or the peer's queue was dropped): nothing is in
    /// flight; unacknowledged messages go again on the next session.
    public mutating func sessionEnded(_ peer: UUID) {
        inFlight[peer] = nil
    }

    /// Messages in flight to `peer`.
    public func inFlightCount(_ peer: UUID) -> Int { inFlight[peer]?.count ?? 0 }
}
