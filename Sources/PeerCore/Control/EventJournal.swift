package import FoundationEssentials
package import PeerProtocol

/// The daemon's recent events, numbered, so a subscriber can resume with
/// `since=N` after a reconnect. Holds at most `capacity` events.
package struct EventJournal: Sendable {
    /// How many events are kept for replay.
    package let capacity: Int
    /// The sequence number of the newest event (0 before any).
    package private(set) var lastSeq: UInt64 = 0
    private var events: [ControlEvent] = []
    private var head = 0

    /// Creates an empty journal keeping `capacity` events.
    package init(capacity: Int) {
        self.capacity = max(1, capacity)
        events.reserveCapacity(self.capacity)
    }

    /// Records an event, giving it the next sequence number.
    package mutating func append(_ type: EventKind, peer: PeerSnapshot?, time: Date) -> ControlEvent {
        record(ControlEvent(seq: 0, type: type, time: time, peer: peer))
    }

    /// Numbers `event` and, unless `replayable` is false, keeps it for
    /// replay. Messages are numbered but not kept: their payloads could be
    /// megabytes each.
    package mutating func record(_ event: ControlEvent, replayable: Bool = true) -> ControlEvent {
        lastSeq += 1
        var event = event
        event.seq = lastSeq
        guard replayable else { return event }
        if events.count < capacity {
            events.append(event)
        } else {
            events[head] = event
            head = (head + 1) % capacity
        }
        return event
    }

    /// The held events after `seq`, oldest first, and whether some events
    /// after `seq` are no longer held (the replay has a gap).
    package func events(after seq: UInt64) -> (events: [ControlEvent], truncated: Bool) {
        let ordered = Array(events[head...] + events[..<head])
        let replay = ordered.filter { $0.seq > seq }
        let oldestHeld = ordered.first?.seq ?? lastSeq + 1
        let truncated = seq < lastSeq && seq + 1 < oldestHeld
        return (replay, truncated)
    }
}
