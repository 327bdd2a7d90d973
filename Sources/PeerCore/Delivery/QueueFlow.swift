package import FoundationEssentials

/// Which queued messages go when: the decisions of durable delivery.
///
/// Per queue (a peer's messages of one app, ``QueueKey``) it remembers the
/// session numbers of the queued messages handed to the current session
/// and not yet acknowledged, oldest first. The queue's messages beyond
/// those go next; an acknowledgement covering them says how many leave the
/// disk; a session that ends forgets them, so they are sent again on the
/// next one (at least once). An app's messages the peer refused
/// (`appBusy`) are no longer in flight: they go again once it has room.
package struct QueueFlow: Sendable, Equatable {
    private var inFlight: [QueueKey: [UInt64]] = [:]

    /// An empty flow.
    package init() {}

    /// Of `pending` queued messages for `peer`, the index of the first one
    /// not yet handed to its session (the ones before it are in flight).
    package func nextIndex(for peer: UUID, pending: Int) -> Int {
        nextIndex(for: QueueKey(peer: peer), pending: pending)
    }

    /// Of `pending` queued messages of `key`, the index of the first one
    /// not yet handed to its session.
    package func nextIndex(for key: QueueKey, pending: Int) -> Int {
        min(inFlight[key]?.count ?? 0, pending)
    }

    /// The next queued message of the default app went out as `number`.
    package mutating func sent(_ number: UInt64, to peer: UUID) {
        sent(number, of: QueueKey(peer: peer))
    }

    /// The next queued message of `key` went out on the session as `number`.
    package mutating func sent(_ number: UInt64, of key: QueueKey) {
        inFlight[key, default: []].append(number)
    }

    /// The default app's queued messages covered by an acknowledgement.
    package mutating func acknowledged(through: UInt64, by peer: UUID) -> Int {
        acknowledged(through: through, of: QueueKey(peer: peer))
    }

    /// The peer acknowledged its session's messages 1…`through`. Returns how
    /// many queued messages of `key` that covers: they leave the disk,
    /// oldest first.
    package mutating func acknowledged(through: UInt64, of key: QueueKey) -> Int {
        guard var numbers = inFlight[key] else { return 0 }
        let done = numbers.prefix { $0 <= through }.count
        numbers.removeFirst(done)
        inFlight[key] = numbers.isEmpty ? nil : numbers
        return done
    }

    /// The peer refused `key`'s messages from session message `first` on
    /// (`appBusy`): those are not in flight any more, and go again later.
    /// Returns how many that was.
    @discardableResult
    package mutating func refused(from first: UInt64, of key: QueueKey) -> Int {
        guard var numbers = inFlight[key] else { return 0 }
        let kept = numbers.prefix { $0 < first }.count
        let dropped = numbers.count - kept
        numbers.removeLast(dropped)
        inFlight[key] = numbers.isEmpty ? nil : numbers
        return dropped
    }

    /// The session ended (or the peer's queues were dropped): nothing is in
    /// flight for any of the peer's queues; unacknowledged messages go
    /// again on the next session.
    package mutating func sessionEnded(_ peer: UUID) {
        for key in inFlight.keys where key.peer == peer { inFlight[key] = nil }
    }

    /// Messages of the default app in flight to `peer`.
    package func inFlightCount(_ peer: UUID) -> Int { inFlightCount(QueueKey(peer: peer)) }

    /// Messages of `key` in flight.
    package func inFlightCount(_ key: QueueKey) -> Int { inFlight[key]?.count ?? 0 }
}
