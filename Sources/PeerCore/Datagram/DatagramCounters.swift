/// What crossed one datagram path, or all of them: datagrams sent and
/// received (authenticated), and those dropped, by reason. `peer` and
/// `status` show them (``DatagramInfo``, ``DatagramStatus``).
package import PeerProtocol
package struct DatagramCounters: Sendable, Equatable {
    /// Datagrams the kernel took.
    package var sent: UInt64 = 0
    /// Datagrams that authenticated and were new.
    package var received: UInt64 = 0
    /// Dropped datagrams, by reason.
    package private(set) var dropped: [DatagramDrop: UInt64] = [:]

    /// No counts.
    package init() {}

    /// Counts one dropped datagram.
    package mutating func drop(_ reason: DatagramDrop) { dropped[reason, default: 0] += 1 }

    /// Adds another path's counts.
    package mutating func add(_ other: DatagramCounters) {
        sent += other.sent
        received += other.received
        for (reason, count) in other.dropped { dropped[reason, default: 0] += count }
    }

    /// The drops as the control protocol says them (``DatagramDrop``'s raw values).
    package var droppedByName: [String: UInt64] {
        Dictionary(uniqueKeysWithValues: dropped.map { ($0.key.rawValue, $0.value) })
    }
}
