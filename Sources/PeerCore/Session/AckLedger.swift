/// One session's message counts and acknowledgements (docs/protocol.md §5),
/// without I/O.
///
/// Messages are numbered 1, 2, … per direction. The receiver acknowledges
/// cumulatively, after every 64 messages and at least once a second while
/// any is unacknowledged, and only messages it has made safe (handed to a
/// client or stored). An acknowledgement of more than was sent is a
/// protocol error.
package struct AckLedger: Sendable, Equatable {
    /// Messages sent on the session.
    package private(set) var sent: UInt64 = 0
    /// Messages received and made safe.
    package private(set) var received: UInt64 = 0
    /// The count last acknowledged to the peer.
    package private(set) var acknowledged: UInt64 = 0

    /// A new session's ledger.
    package init() {}

    /// One more message goes out; returns its number.
    package mutating func send() -> UInt64 {
        sent += 1
        return sent
    }

    /// One more message arrived and is safe.
    package mutating func receive() {
        received += 1
    }

    /// The count to acknowledge now, if `batch` or more messages (at least
    /// one) wait: it is then taken as acknowledged.
    package mutating func acknowledgement(every batch: UInt64) -> UInt64? {
        guard received > acknowledged, received >= acknowledged + batch else { return nil }
        acknowledged = received
        return received
    }

    /// Whether the peer's acknowledgement of `count` is possible.
    package func accepts(_ count: UInt64) -> Bool { count <= sent }
}
