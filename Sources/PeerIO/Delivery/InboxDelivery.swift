import FoundationEssentials
import PeerCore
import PeerProtocol

/// Hands arriving messages to the clients that take them, and keeps those
/// no client takes in the durable ``MessageInbox`` until one does.
///
/// Decisions are ``InboxRouting``'s; this shell performs them. The inbox
/// file lives on its own ``DiskWorker``: storing, reading back and marking
/// taken run there, never on the main actor, and ``index`` changes only
/// once the disk has confirmed a change. A message leaves the inbox only
/// once its event (or the `take` answer holding it) is written whole to the
/// client's socket: a client that goes away before that leaves it waiting
/// for the next one.
@MainActor
package final class InboxDelivery {
    private let worker: DiskWorker<MessageInbox>?
    private let unavailable: String?
    /// What waits, as the disk has confirmed it.
    private var index: InboxIndex
    /// Appends under way, per sender: they count against the limits, and
    /// the sender's later messages queue behind them.
    private var storing: [String: InboxIndex.Share] = [:]
    private var routing: InboxRouting
    /// Which queued messages this inbox has (exactly once): the main
    /// actor's view of what the disk confirmed, as ``index`` is (the disk
    /// worker's ``MessageInbox/marks`` is what writes them into the file;
    /// this one decides, without waiting for the worker).
    private var marks = DeliveryMarks()
    /// The daemon's one path for events (given at init).
    private let events: EventOutlet
    private let logger: Logger
    private let lookUp: @MainActor (String) -> InboxSender
    private let budget: Int
    private let clock: DaemonClock
    /// Taking clients, by connection number.
    private var takers: [Int: ControlConnection] = [:]
    /// Messages handed to a client whose bytes are not all written yet:
    /// per connection, the inbox id and the byte count that completes it.
    private var handedOver: [Int: [(id: UInt64, end: UInt64)]] = [:]
    /// Messages being read for, handed to, or marked taken by a client: no
    /// other client gets them meanwhile.
    private var reserved: Set<UInt64> = []
    /// Takers whose next messages are being read from disk.
    private var reading: Set<Int> = []
    /// A taken message made room: paused senders may come back (given at init).
    private let onRoom: @MainActor () -> Void
    /// The app whose inbox this is (the default app's is `inbox`).
    package let app: AppName
    /// Who hears this inbox's `stored` events: every subscriber for the
    /// default app, an app's own clients for an app (given at init).
    private let audience: @MainActor (ControlConnection) -> Bool

    /// Opens the inbox under `stateDirectory` (at start-up). If it cannot
    /// be opened the daemon runs on, delivering live, and refuses what it
    /// cannot store. `budget` is how many bytes a taker may have unread
    /// before the inbox waits for it; `events` numbers and sends its
    /// events; `onRoom` hears that taken messages made room.
    /// `app` names the inbox (its file is `inbox.NAME`), and `audience`
    /// picks who hears of what it stores.
    init(stateDirectory: String, app: AppName = .none, limit: Int, budget: Int, events: EventOutlet, logger: Logger,
                lookUp: @escaping @MainActor (String) -> InboxSender,
                onRoom: @escaping @MainActor () -> Void, audience: @escaping @MainActor (ControlConnection) -> Bool = { _ in true },
                clock: DaemonClock = .system) {
        self.onRoom = onRoom
        self.clock = clock
        self.app = app
        self.audience = audience
        do {
            let store = try MessageInbox(stateDirectory: stateDirectory, fileName: Self.fileName(of: app), oldFileName: Self.oldFileName(of: app),
                                         limit: limit, logger: logger)
            index = store.index
            marks = DeliveryMarks(stored: store.marks)
            worker = DiskWorker(label: "peerd.inbox", state: store)
            unavailable = nil
        } catch {
            logger.error("the inbox cannot be opened: \(error); messages no client takes will be refused (busy)")
            index = InboxIndex()
            worker = nil
            unavailable = "the inbox cannot be opened (\(error))"
        }
        routing = InboxRouting(limit: limit)
        self.budget = budget
        self.events = events
        self.logger = logger
        self.lookUp = lookUp
        if !index.entries.isEmpty {
            logger.info("the inbox holds \(count) message\(count == 1 ? "" : "s") (\(bytes) bytes) waiting for a client")
        }
    }

    /// The inbox file of `app` under the state directory: `inbox2` for the
    /// default app, `inbox2.NAME` for an app (``InboxFileCodec`` version 2,
    /// under names no earlier release opens).
    package nonisolated static func fileName(of app: AppName) -> String {
        app.isDefault ? "inbox2" : "inbox2." + app.text
    }

    /// The inbox file of `app` before exactly-once (version 1): `inbox`
    /// (0.2.0, and 0.3.0 as first released) and `inbox.NAME`; carried into
    /// ``fileName(of:)`` at start-up, then removed.
    package nonisolated static func oldFileName(of app: AppName) -> String {
        app.isDefault ? "inbox" : "inbox." + app.text
    }

    /// Whether a queued message from `peerID` is kept exactly once here:
    /// the sender is paired (marks are kept only for paired peers, so they
    /// are bounded by the trust store) and the inbox can store.
    package func keepsOnce(from peerID: String) -> Bool {
        worker != nil && lookUp(peerID).paired
    }

    /// The app's name in events and answers: nil for the default app.
    private var appField: String? { app.isDefault ? nil : app.text }

    /// Messages waiting.
    package var count: Int { index.entries.count }
    /// Bytes they take on disk.
    package var bytes: Int { index.bytes }
    /// The limit (`--inbox-size`).
    package var limit: Int { routing.limit }

    /// Waits for the disk work already handed to the inbox's worker (at shutdown).
    package func finishWriting() {
        worker?.runAndWait { _ in }
    }

    /// A whole message arrived from `peerID`. When the answer is
    /// ``InboxOutcome/storing``, `stored` is called later with nil (on disk:
    /// acknowledge it) or the words for a `busy` close.
    /// A `tag` (from ``keepsOnce(from:)``'s senders alone) makes it a
    /// queued message kept exactly once: a repeat is dropped
    /// (``InboxOutcome/repeated``), and a new one is stored first, its
    /// mark in its record, before takers get it.
    package func arrived(_ data: [UInt8], from peerID: String, now: Date, tag: QueueTag? = nil,
                        stored: @escaping @MainActor (String?) -> Void) -> InboxOutcome {
        let sender = lookUp(peerID)
        if let tag, marks.check(tag, from: peerID) == .repeated {
            logger.debug("a queued message from \(peerID) came again (\(tag)); it is stored already, so it is dropped")
            return .repeated
        }
        let usage = usage(from: peerID)
        switch routing.route(from: peerID, paired: sender.paired, size: data.count, usage: usage, durable: tag != nil) {
        case .live(let numbers):
            let event = ControlEvent(seq: 0, type: .message, time: now, peer: nil,
                                            message: MessageInfo(from: sender.uuid, peerId: peerID, data: Data(data).base64EncodedString(), size: data.count,
                                                                 app: appField))
            let live = numbers.compactMap { taker in takers[taker].map { (taker, $0) } }
            var handed = false
            for ((taker, _), took) in zip(live, events.deliver(event, to: live.map(\.1))) where took {
                handed = true
                if routing.handed(1, to: taker) { finishTaker(taker) }
            }
            if handed { return .accepted }
            // Every taker fell away: the inbox keeps it instead, if it can.
            if let refusal = routing.admit(paired: sender.paired, size: data.count, usage: usage) { return .refused(refusal.description) }
            return store(data, from: peerID, sender: sender, now: now, tag: tag, stored: stored)
        case .store:
            return store(data, from: peerID, sender: sender, now: now, tag: tag, stored: stored)
        case .refuse(let refusal):
            return .refused(refusal.description)
        }
    }

    /// What the inbox holds and is storing, as the routing counts it.
    /// Asked once a message: plain loops, no dictionary built (with an
    /// empty inbox, the live case, they do nothing).
    private func usage(from peerID: String) -> InboxRouting.Usage {
        var usage = InboxRouting.Usage(bytes: 0, unpairedBytes: 0, waitingFromSender: 0)
        func count(_ shares: [String: InboxIndex.Share]) {
            for (sender, share) in shares {
                usage.bytes += share.bytes
                if !lookUp(sender).paired { usage.unpairedBytes += share.bytes }
                if sender == peerID { usage.waitingFromSender += share.count }
            }
        }
        count(index.bySender)
        count(storing)
        return usage
    }

    private func store(_ data: [UInt8], from peerID: String, sender: InboxSender, now: Date, tag: QueueTag?,
                       stored: @escaping @MainActor (String?) -> Void) -> InboxOutcome {
        guard let worker else { return .refused(unavailable ?? "the inbox is not available") }
        let size = InboxFileCodec.recordSize(dataCount: data.count)
        storing[peerID, default: InboxIndex.Share(count: 0, bytes: 0)].count += 1
        storing[peerID]?.bytes += size
        if let tag { marks.storing(tag, from: peerID) }
        worker.run({ inbox in
            Result<InboxEntry, SystemError> { () throws(SystemError) in try inbox.append(data, from: peerID, at: now, tag: tag) }
        }, then: { [weak self] result in
            guard let self else { return }
            if let tag {
                let ok = if case .success = result { true } else { false }
                self.marks.stored(tag, from: peerID, ok: ok)
            }
            if var share = self.storing[peerID] {
                share.count -= 1
                share.bytes -= size
                self.storing[peerID] = share.count == 0 ? nil : share
            }
            switch result {
            case .success(let entry):
                self.index.append(entry)
                self.events.emit(ControlEvent(seq: 0, type: .stored, time: now, stored: self.info(entry, sender: sender)), to: self.audience)
                stored(nil)
                self.pumpAll()
            case .failure(let error):
                self.logger.error("cannot store a message from \(peerID) in the inbox: \(error)")
                stored("the inbox cannot store it (\(error))")
            }
        })
        return .storing
    }

    /// A client takes messages: what waits for it first, then live ones.
    package func addTaker(_ connection: ControlConnection, from peerID: String?, count: Int?) {
        routing.add(InboxRouting.Taker(from: peerID, remaining: count), number: connection.number)
        takers[connection.number] = connection
        if count == 0 { finishTaker(connection.number) }
        pump(connection)
    }

    /// What waits, without data: at most `max` messages, from `peerID` or anyone.
    package func list(from peerID: String?, max: Int) -> InboxResult {
        let entries = index.entries.filter { peerID == nil || $0.peerID == peerID }
        return InboxResult(messages: entries.prefix(max).map { info($0, sender: lookUp($0.peerID)) },
                           count: entries.count, bytes: bytes, limit: limit)
    }

    /// Messages for a `take`, read from disk: `done` gets them and their
    /// ids. They leave the inbox once the answer holding them is written
    /// (call ``answered(_:ids:)`` after queueing it, or ``unclaimed(_:)``
    /// if it was never sent).
    package func take(from peerID: String?, max: Int,
                     then done: @escaping @MainActor (Result<(result: TakeResult, ids: [UInt64]), ControlError>) -> Void) {
        guard let worker else { return done(.success((TakeResult(messages: [], remaining: 0), []))) }
        let batch = InboxRouting.batch(from: index.entries, wanted: peerID, max: max, reserved: reserved, budget: budget)
        let remaining = index.entries.filter { (peerID == nil || $0.peerID == peerID) && !reserved.contains($0.id) }.count - batch.count
        let ids = batch.map(\.id)
        reserved.formUnion(ids)
        worker.run({ inbox in
            Result<[[UInt8]], SystemError> { () throws(SystemError) in try ids.map { id throws(SystemError) in try inbox.data(id: id) } }
        }, then: { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                self.reserved.subtract(ids)
                done(.failure(ControlError(.storageFailed, "cannot read the inbox: \(error)")))
            case .success(let data):
                let messages = zip(batch, data).map { self.message($0, data: $1) }
                done(.success((TakeResult(messages: messages, remaining: remaining), ids)))
            }
        })
    }

    /// The answer to a `take` holding `ids` was queued on `connection`.
    package func answered(_ connection: ControlConnection, ids: [UInt64]) {
        guard !ids.isEmpty else { return }
        let end = connection.queuedTotal
        for id in ids { handedOver[connection.number, default: []].append((id, end)) }
        settle(connection)
    }

    /// The answer holding `ids` was not sent (its client left first): they wait still.
    package func unclaimed(_ ids: [UInt64]) {
        reserved.subtract(ids)
    }

    /// Bytes were written to `connection`: messages it has whole leave the inbox.
    package func written(_ connection: ControlConnection) {
        if handedOver[connection.number] != nil { settle(connection) }
        if takers[connection.number] != nil { pump(connection) }
    }

    /// `connection` is gone: what it had not got whole waits for the next client.
    package func closed(_ connection: ControlConnection) {
        routing.remove(connection.number)
        takers[connection.number] = nil
        if let pending = handedOver.removeValue(forKey: connection.number) {
            for item in pending { reserved.remove(item.id) }
            logger.info("control client \(connection.number) left before \(pending.count) message\(pending.count == 1 ? " was" : "s were") written to it; \(pending.count == 1 ? "it stays" : "they stay") in the inbox")
            pumpAll()
        }
    }

    /// Messages `connection` has whole are marked taken on disk; they stay
    /// reserved until that is done, and leave the index once it is.
    private func settle(_ connection: ControlConnection) {
        guard let pending = handedOver[connection.number], let worker else { return }
        let written = connection.writtenTotal
        let done = pending.prefix { $0.end <= written }
        guard !done.isEmpty else { return }
        let ids = Set(done.map(\.id))
        handedOver[connection.number] = pending.count == done.count ? nil : Array(pending.dropFirst(done.count))
        worker.run({ inbox in
            var failure: SystemError?
            do throws(SystemError) { try inbox.remove(ids) } catch { failure = error }
            // What the file's own index still holds is what still waits.
            return (left: Set(ids.filter { inbox.index.entry(id: $0) != nil }), failure: failure)
        }, then: { [weak self] outcome in
            guard let self else { return }
            self.reserved.subtract(ids)
            self.index.remove(ids.subtracting(outcome.left))
            if let error = outcome.failure {
                // The client has them; on disk they may wait still, and be
                // handed out again (at least once).
                self.logger.error("cannot mark \(ids.count) taken message(s) in the inbox: \(error); they may be delivered again")
            }
            self.onRoom()
            if !outcome.left.isEmpty { self.pumpAll() }
        })
    }

    private func pumpAll() {
        for connection in takers.values { pump(connection) }
    }

    /// Hands waiting messages to a taker while it has room for them: a
    /// batch is read from disk, then sent, then the next.
    private func pump(_ connection: ControlConnection) {
        let taker = connection.number
        guard let worker, !reading.contains(taker), takers[taker] === connection, !connection.isClosing,
              connection.queuedBytes < budget else { return }
        let batch = routing.nextBatch(for: taker, entries: index.entries, reserved: reserved, budget: budget - connection.queuedBytes)
        guard !batch.isEmpty else { return }
        let ids = batch.map(\.id)
        reading.insert(taker)
        reserved.formUnion(ids)
        worker.run({ inbox in
            ids.map { id in Result<[UInt8], SystemError> { () throws(SystemError) in try inbox.data(id: id) } }
        }, then: { [weak self, weak connection] results in
            guard let self else { return }
            self.reading.remove(taker)
            var handed = 0
            defer { self.reserved.subtract(ids.dropFirst(handed)) }
            guard let connection, self.takers[taker] === connection, !connection.isClosing else { return }
            var more = true
            for (entry, result) in zip(batch, results) {
                guard case .success(let data) = result else {
                    if case .failure(let error) = result { self.logger.error("cannot read message \(entry.id) from the inbox: \(error)") }
                    more = false
                    break
                }
                let event = ControlEvent(seq: 0, type: .message, time: self.clock.now(), message: self.message(entry, data: data))
                guard self.events.deliver(event, to: [connection]) == [true] else {
                    more = false
                    break
                }
                self.handedOver[taker, default: []].append((entry.id, connection.queuedTotal))
                handed += 1
                if self.routing.handed(1, to: taker) {
                    self.finishTaker(taker)
                    more = false
                    break
                }
            }
            self.settle(connection)
            if more { self.pump(connection) }
        })
    }

    private func finishTaker(_ number: Int) {
        routing.remove(number)
        takers[number] = nil
    }

    private func info(_ entry: InboxEntry, sender: InboxSender) -> InboxMessage {
        InboxMessage(id: entry.id, from: sender.uuid, peerId: entry.peerID, name: sender.name, received: entry.received, size: entry.size,
                     app: appField)
    }

    private func message(_ entry: InboxEntry, data: [UInt8]) -> MessageInfo {
        MessageInfo(from: lookUp(entry.peerID).uuid, peerId: entry.peerID, data: Data(data).base64EncodedString(), size: entry.size,
                    inbox: entry.id, received: entry.received, app: appField)
    }
}
