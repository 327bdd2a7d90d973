/// Where a message from a peer goes, and which stored messages a taking
/// client gets next: the inbox's decisions, without I/O.
///
/// A *taker* is a client that takes messages (`subscribe` with `take`, or
/// `peerctl recv`), optionally only from one peer and only so many. A
/// message goes live to every taker that wants it, unless messages from the
/// same sender still wait in the inbox: then it joins them, so each sender's
/// order holds. With no taker it is stored. The inbox is bounded: in all by
/// `limit` bytes of records, and messages from unpaired peers by a quarter
/// of it, so a stranger cannot fill the inbox against paired peers.
package struct InboxRouting: Sendable {
    /// One client taking messages.
    package struct Taker: Sendable, Equatable {
        /// Only messages from this peer id, or from anyone.
        package var from: String?
        /// How many more it takes; nil for no end.
        package var remaining: Int?

        /// Creates a taker.
        package init(from: String? = nil, remaining: Int? = nil) {
            self.from = from
            self.remaining = remaining
        }

        /// Whether it takes a message from `peerID` now.
        package func wants(_ peerID: String) -> Bool {
            (from == nil || from == peerID) && (remaining ?? 1) > 0
        }
    }

    /// What the inbox holds now.
    package struct Usage: Sendable, Equatable {
        /// Record bytes of every waiting message.
        package var bytes: Int
        /// Record bytes of those from unpaired peers.
        package var unpairedBytes: Int
        /// Messages waiting from the sender in question.
        package var waitingFromSender: Int

        /// Creates it.
        package init(bytes: Int, unpairedBytes: Int, waitingFromSender: Int) {
            self.bytes = bytes
            self.unpairedBytes = unpairedBytes
            self.waitingFromSender = waitingFromSender
        }
    }

    /// Why a message cannot be stored.
    package enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// The inbox is full.
        case full(limit: Int, used: Int)
        /// Unpaired peers' share is used up.
        case unpairedShare(limit: Int, used: Int)

        /// Words for the sender and the log.
        package var description: String {
            switch self {
            case .full(let limit, let used):
                return "the inbox is full (\(used) of \(limit) bytes; --inbox-size): a client there must take messages first"
            case .unpairedShare(let limit, let used):
                return "the inbox's share for unpaired peers is full (\(used) of \(limit) bytes, a quarter of --inbox-size): pair, or a client there must take messages first"
            }
        }
    }

    /// Where one message goes.
    package enum Route: Sendable, Equatable {
        /// To these takers, now.
        case live([Int])
        /// Into the inbox.
        case store
        /// Nowhere: the sender must keep it and try later (`busy`).
        case refuse(Refusal)
    }

    /// Record bytes the inbox may hold (`--inbox-size`).
    package let limit: Int
    /// The takers, by connection number.
    package private(set) var takers: [Int: Taker] = [:]

    /// Routing for an inbox of `limit` bytes.
    package init(limit: Int) {
        self.limit = limit
    }

    /// Record bytes unpaired peers' messages may hold together.
    package var unpairedLimit: Int { limit / 4 }

    /// Where a message of `size` bytes from `peerID` goes. A `durable`
    /// one (a queued message kept exactly once) is always stored first:
    /// its record is its mark, and takers get it from the inbox.
    package func route(from peerID: String, paired: Bool, size: Int, usage: Usage, durable: Bool = false) -> Route {
        if usage.waitingFromSender == 0 && !durable {
            // A loop, not filter and sort of the keys: this runs once a message.
            var live: [Int] = []
            for (number, taker) in takers where taker.wants(peerID) { live.append(number) }
            if !live.isEmpty { return .live(live.count == 1 ? live : live.sorted()) }
        }
        return admit(paired: paired, size: size, usage: usage).map(Route.refuse) ?? .store
    }

    /// Why a message of `size` bytes cannot be stored now, or nil if it can.
    package func admit(paired: Bool, size: Int, usage: Usage) -> Refusal? {
        let record = InboxFileCodec.recordSize(dataCount: size)
        if usage.bytes + record > limit { return .full(limit: limit, used: usage.bytes) }
        if !paired && usage.unpairedBytes + record > unpairedLimit {
            return .unpairedShare(limit: unpairedLimit, used: usage.unpairedBytes)
        }
        return nil
    }

    /// A client starts taking messages.
    package mutating func add(_ taker: Taker, number: Int) {
        takers[number] = taker
    }

    /// A client stops taking messages (it left, or took its count).
    package mutating func remove(_ number: Int) {
        takers[number] = nil
    }

    /// `count` messages went to taker `number`. Returns true when it has
    /// now taken all it asked for (and is no longer a taker).
    @discardableResult
    package mutating func handed(_ count: Int, to number: Int) -> Bool {
        guard var taker = takers[number], let remaining = taker.remaining else { return false }
        taker.remaining = max(0, remaining - count)
        if taker.remaining == 0 {
            takers[number] = nil
            return true
        }
        takers[number] = taker
        return false
    }

    /// The stored messages taker `number` gets next, oldest first: those it
    /// wants that no other client holds, up to what it still takes, and up
    /// to `budget` bytes of data (but always one, however large).
    package func nextBatch(for number: Int, entries: some Collection<InboxEntry>, reserved: Set<UInt64>, budget: Int) -> [InboxEntry] {
        guard let taker = takers[number] else { return [] }
        return Self.batch(from: entries, wanted: taker.from, max: taker.remaining ?? Int.max, reserved: reserved, budget: budget)
    }

    /// Stored messages for a one-off `take`: from `peerID` (or anyone), at
    /// most `max`, not held by another client, up to `budget` bytes (but
    /// always one).
    package static func batch(from entries: some Collection<InboxEntry>, wanted peerID: String?, max: Int, reserved: Set<UInt64>, budget: Int) -> [InboxEntry] {
        var batch: [InboxEntry] = []
        var bytes = 0
        for entry in entries where batch.count < max {
            guard peerID == nil || entry.peerID == peerID, !reserved.contains(entry.id) else { continue }
            if !batch.isEmpty && bytes + entry.size > budget { break }
            batch.append(entry)
            bytes += entry.size
        }
        return batch
    }
}
