/// Which queued messages an inbox already has: the decisions of
/// exactly-once delivery (issue 42, point 6; docs/protocol.md §5,
/// "Exactly once"), without I/O.
///
/// Per sender it knows the tag of the last queued message stored on disk
/// (``stored``, rebuilt at start-up from the inbox file) and the tags
/// being stored now. A tag that the newest of them covers (same epoch, seq
/// not past it) is a repeat: the message is dropped and still
/// acknowledged. A tag of another epoch starts the sender's new queue
/// file. A store that fails takes its tag back, so the message is new
/// again when it comes again.
package struct DeliveryMarks: Sendable, Equatable {
    /// What a tagged message is.
    package enum Verdict: Sendable, Equatable {
        /// Not had yet: store it.
        case new
        /// Stored already (or being stored): drop it, acknowledge it.
        case repeated
    }

    /// Per sender, the tag of the last queued message on disk.
    package private(set) var stored: [String: QueueTag]
    /// Per sender, the tags being stored now, oldest first.
    private var storing: [String: [QueueTag]] = [:]

    /// Marks as the inbox file holds them.
    package init(stored: [String: QueueTag] = [:]) {
        self.stored = stored
    }

    /// Whether `tag` from `peerID` is new or a repeat.
    package func check(_ tag: QueueTag, from peerID: String) -> Verdict {
        guard let newest = storing[peerID]?.last ?? stored[peerID] else { return .new }
        return newest.covers(tag) ? .repeated : .new
    }

    /// `tag` from `peerID` is being stored.
    package mutating func storing(_ tag: QueueTag, from peerID: String) {
        storing[peerID, default: []].append(tag)
    }

    /// The store of `tag` ended: on disk (`ok`), or not (it is new again).
    package mutating func stored(_ tag: QueueTag, from peerID: String, ok: Bool) {
        if var tags = storing[peerID], let at = tags.firstIndex(of: tag) {
            tags.remove(at: at)
            storing[peerID] = tags.isEmpty ? nil : tags
        }
        if ok { stored[peerID] = tag }
    }
}
