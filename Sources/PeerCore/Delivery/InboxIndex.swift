/// What waits in the inbox, without data: the entries in id order, and
/// their record bytes in all and per sender. The inbox file's worker keeps
/// one (with offsets), and ``InboxDelivery`` keeps the one clients see,
/// changed only once the disk has confirmed a change.
package struct InboxIndex: Sendable {
    /// Record bytes and message count of one sender's waiting messages.
    package struct Share: Sendable, Equatable {
        /// Messages waiting.
        package var count: Int
        /// Their record bytes.
        package var bytes: Int

        /// A share of `count` messages and `bytes` record bytes.
        package init(count: Int, bytes: Int) {
            self.count = count
            self.bytes = bytes
        }
    }

    /// Entries before `head` were taken (taking is mostly from the front,
    /// so it costs no shifting).
    private var storage: [InboxEntry]
    private var head = 0
    /// Record bytes of the waiting messages.
    package private(set) var bytes = 0
    /// Waiting messages per sender.
    package private(set) var bySender: [String: Share] = [:]

    /// An index of `entries` (in id order).
    package init(_ entries: [InboxEntry] = []) {
        storage = entries
        for entry in entries { count(entry, 1) }
    }

    /// Entries the array has room for, taken ones included (for tests of
    /// what a drained backlog leaves held).
    var heldCapacity: Int { storage.capacity }

    /// The waiting messages, oldest first.
    package var entries: ArraySlice<InboxEntry> { storage[head...] }

    /// The waiting message `id`, if it waits (ids increase, so this is a
    /// binary search).
    package func entry(id: UInt64) -> InboxEntry? {
        var low = head, high = storage.count
        while low < high {
            let middle = (low + high) / 2
            if storage[middle].id < id { low = middle + 1 } else { high = middle }
        }
        return low < storage.count && storage[low].id == id ? storage[low] : nil
    }

    /// A new message (its id above every other).
    package mutating func append(_ entry: InboxEntry) {
        storage.append(entry)
        count(entry, 1)
    }

    /// Takes the messages `ids` out; returns those that were waiting.
    @discardableResult
    package mutating func remove(_ ids: Set<UInt64>) -> [InboxEntry] {
        // Clients take from the front: look there first, not at every entry.
        let front = entries.prefix { ids.contains($0.id) }
        let gone = front.count == ids.count ? Array(front) : entries.filter { ids.contains($0.id) }
        guard !gone.isEmpty else { return [] }
        for entry in gone { count(entry, -1) }
        if front.count == gone.count {
            head += gone.count
        } else {
            storage = entries.filter { !ids.contains($0.id) }
            head = 0
        }
        // Taken entries are let go, and the array's capacity with them (an
        // array keeps the capacity of its longest backlog otherwise: the
        // soak found 100 KB of it): all at once when nothing waits, else
        // into a new array once they are over half.
        if head == storage.count {
            storage = []
            head = 0
        } else if head > 1024 && head > storage.count / 2 {
            storage = Array(storage[head...])
            head = 0
        }
        return gone
    }

    private mutating func count(_ entry: InboxEntry, _ sign: Int) {
        let old = bySender[entry.peerID] ?? Share(count: 0, bytes: 0)
        let new = Share(count: old.count + sign, bytes: old.bytes + sign * entry.recordSize)
        bySender[entry.peerID] = new.count == 0 ? nil : new
        bytes += sign * entry.recordSize
    }
}
