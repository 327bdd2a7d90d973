import FoundationEssentials

/// What `peerctl top` has heard about one peer beyond its row: why its
/// last session ended, its traffic, and its latest events (at most
/// ``maxEvents``).
package struct TopPeerActivity: Equatable, Sendable {
    /// Events kept per peer.
    package static let maxEvents = 12

    /// Why the last session ended, and the words with it.
    package var lastReason: String?
    /// Messages the peer acknowledged on its current session.
    package var messagesDelivered: UInt64 = 0
    /// Messages received from it while top ran.
    package var messagesReceived = 0
    /// File bytes moved with it (both ways), as last reported per transfer.
    package var transferBytes: [String: Int64] = [:]
    /// The latest events, oldest first: (when, what).
    package private(set) var events: [(time: Date, text: String)] = []

    /// No activity yet.
    package init() {}

    /// Keeps `text` as the newest event, dropping the oldest past the limit.
    package mutating func note(_ text: String, at time: Date) {
        events.append((time, text))
        if events.count > Self.maxEvents { events.removeFirst(events.count - Self.maxEvents) }
    }

    /// File bytes, summed.
    package var fileBytes: Int64 { transferBytes.values.reduce(0, +) }

    /// Equal when everything shown is equal.
    package static func == (a: TopPeerActivity, b: TopPeerActivity) -> Bool {
        a.lastReason == b.lastReason && a.messagesDelivered == b.messagesDelivered && a.messagesReceived == b.messagesReceived
            && a.transferBytes == b.transferBytes && a.events.map(\.text) == b.events.map(\.text) && a.events.map(\.time) == b.events.map(\.time)
    }
}
