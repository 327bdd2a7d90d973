import FoundationEssentials
import PeerCore

/// Hands arriving messages to the clients that take them, and keeps those
/// no client takes in the durable ``MessageInbox`` until one does.
///
/// Decisions are ``InboxRouting``'s; this shell performs them. A message
/// leaves the inbox only once its event (or the `take` answer holding it) is
/// written whole to the client's socket: a client that goes away before
/// that leaves it waiting for the next one.
@MainActor
public final class InboxDelivery {
    /// The sender as clients see it.
    public struct Sender {
        /// Its row's UUID, if it has one.
        public var uuid: UUID?
        /// Its name, if known.
        public var name: String?
        /// Whether it is paired.
        public var paired: Bool

        /// Creates it.
        public init(uuid: UUID?, name: String?, paired: Bool) {
            self.uuid = uuid
            self.name = name
            self.paired = paired
        }
    }

    /// What became of an arriving message.
    public enum Outcome: Equatable {
        /// A client has it, or the inbox: acknowledge it.
        case accepted
        /// Neither: close the session as `busy` with these words.
        case refused(String)
    }

    private let store: MessageInbox?
    private let unavailable: String?
    private var routing: InboxRouting
    private let control: ControlServer
    private let logger: Logger
    private let lookUp: @MainActor (String) -> Sender
    private let number: @MainActor (ControlEvent) -> ControlEvent
    private let budget: Int
    private let clock: DaemonClock
    /// Taking clients, by connection number.
    private var takers: [Int: ControlConnection] = [:]
    /// Messages handed to a client whose bytes are not all written yet:
    /// per connection, the inbox id and the byte count that completes it.
    private var handedOver: [Int: [(id: UInt64, end: UInt64)]] = [:]
    private var reserved: Set<UInt64> = []
    private var pumping = false
    /// Called when a taken message made room (paused senders may come back).
    public var onRoom: (@MainActor () -> Void)?

    /// Opens the inbox under `stateDirectory`. If it cannot be opened the
    /// daemon runs on, delivering live, and refuses what it cannot store.
    /// `budget` is how many bytes a taker may have unread before the
    /// inbox waits for it; `number` gives an event its sequence number.
    public init(stateDirectory: String, limit: Int, budget: Int, control: ControlServer, logger: Logger,
                lookUp: @escaping @MainActor (String) -> Sender, number: @escaping @MainActor (ControlEvent) -> ControlEvent,
                clock: DaemonClock = .system) {
        self.clock = clock
        do {
            store = try MessageInbox(stateDirectory: stateDirectory, limit: limit, logger: logger)
            unavailable = nil
        } catch {
            logger.error("the inbox cannot be opened: \(error); messages no client takes will be refused (busy)")
            store = nil
            unavailable = "the inbox cannot be opened (\(error))"
        }
        routing = InboxRouting(limit: limit)
        self.budget = budget
        self.control = control
        self.logger = logger
        self.lookUp = lookUp
        self.number = number
        if let store, !store.entries.isEmpty {
            logger.info("the inbox holds \(store.entries.count) message\(store.entries.count == 1 ? "" : "s") (\(store.bytes) bytes) waiting for a client")
        }
    }

    /// Messages waiting.
    public var count: Int { store?.entries.count ?? 0 }
    /// Bytes they take on disk.
    public var bytes: Int { store?.bytes ?? 0 }
    /// The limit (`--inbox-size`).
    public var limit: Int { routing.limit }

    /// A whole message arrived from `peerID`.
    public func arrived(_ data: [UInt8], from peerID: String, now: Date) -> Outcome {
        let sender = lookUp(peerID)
        let waiting = store?.bySender ?? [:]
        let usage = InboxRouting.Usage(
            bytes: store?.bytes ?? 0,
            unpairedBytes: waiting.filter { !lookUp($0.key).paired }.reduce(0) { $0 + $1.value.bytes },
            waitingFromSender: waiting[peerID]?.count ?? 0)
        switch routing.route(from: peerID, paired: sender.paired, size: data.count, usage: usage) {
        case .live(let numbers):
            let event = number(ControlEvent(seq: 0, type: .message, time: now, peer: nil,
                                            message: MessageInfo(from: sender.uuid, peerId: peerID, data: Data(data).base64EncodedString(), size: data.count)))
            var handed = false
            for taker in numbers {
                guard let connection = takers[taker] else { continue }
                if control.send(event, to: connection) {
                    handed = true
                    if routing.handed(1, to: taker) { finishTaker(taker) }
                }
            }
            if handed { return .accepted }
            // Every taker fell away: the inbox keeps it instead, if it can.
            if let refusal = routing.admit(paired: sender.paired, size: data.count, usage: usage) { return .refused(refusal.description) }
            return store(data, from: peerID, sender: sender, now: now)
        case .store:
            return store(data, from: peerID, sender: sender, now: now)
        case .refuse(let refusal):
            return .refused(refusal.description)
        }
    }

    private func store(_ data: [UInt8], from peerID: String, sender: Sender, now: Date) -> Outcome {
        guard let store else { return .refused(unavailable ?? "the inbox is not available") }
        let entry: InboxEntry
        do {
            entry = try store.append(data, from: peerID, at: now)
        } catch {
            logger.error("cannot store a message from \(peerID) in the inbox: \(error)")
            return .refused("the inbox cannot store it (\(error))")
        }
        control.broadcast(number(ControlEvent(seq: 0, type: .stored, time: now, stored: info(entry, sender: sender))))
        pumpAll()
        return .accepted
    }

    /// A client takes messages: what waits for it first, then live ones.
    public func addTaker(_ connection: ControlConnection, from peerID: String?, count: Int?) {
        routing.add(InboxRouting.Taker(from: peerID, remaining: count), number: connection.number)
        takers[connection.number] = connection
        if count == 0 { finishTaker(connection.number) }
        pump(connection)
    }

    /// What waits, without data: at most `max` messages, from `peerID` or anyone.
    public func list(from peerID: String?, max: Int) -> InboxResult {
        let entries = (store?.entries ?? []).filter { peerID == nil || $0.peerID == peerID }
        return InboxResult(messages: entries.prefix(max).map { info($0, sender: lookUp($0.peerID)) },
                           count: entries.count, bytes: bytes, limit: limit)
    }

    /// Messages for a `take`: they leave the inbox once the answer holding
    /// them is written (call ``answered(_:ids:)`` after queueing it).
    public func take(from peerID: String?, max: Int) throws(SystemError) -> (result: TakeResult, ids: [UInt64]) {
        guard let store else { return (TakeResult(messages: [], remaining: 0), []) }
        let batch = InboxRouting.batch(from: store.entries, wanted: peerID, max: max, reserved: reserved, budget: budget)
        var messages: [MessageInfo] = []
        for entry in batch {
            let data = try store.data(of: entry)
            messages.append(message(entry, data: data))
        }
        let remaining = store.entries.filter { (peerID == nil || $0.peerID == peerID) && !reserved.contains($0.id) }.count - batch.count
        return (TakeResult(messages: messages, remaining: remaining), batch.map(\.id))
    }

    /// The answer to a `take` holding `ids` was queued on `connection`.
    public func answered(_ connection: ControlConnection, ids: [UInt64]) {
        guard !ids.isEmpty else { return }
        let end = connection.queuedTotal
        for id in ids {
            handedOver[connection.number, default: []].append((id, end))
            reserved.insert(id)
        }
        settle(connection)
    }

    /// Bytes were written to `connection`: messages it has whole leave the inbox.
    public func written(_ connection: ControlConnection) {
        guard !pumping, handedOver[connection.number] != nil else { return }
        settle(connection)
        if !pumping, takers[connection.number] != nil { pump(connection) }
    }

    /// `connection` is gone: what it had not got whole waits for the next client.
    public func closed(_ connection: ControlConnection) {
        routing.remove(connection.number)
        takers[connection.number] = nil
        if let pending = handedOver.removeValue(forKey: connection.number) {
            for item in pending { reserved.remove(item.id) }
            logger.info("control client \(connection.number) left before \(pending.count) message\(pending.count == 1 ? " was" : "s were") written to it; \(pending.count == 1 ? "it stays" : "they stay") in the inbox")
            pumpAll()
        }
    }

    private func settle(_ connection: ControlConnection) {
        guard let pending = handedOver[connection.number], let store else { return }
        let written = connection.writtenTotal
        let done = pending.prefix { $0.end <= written }
        guard !done.isEmpty else { return }
        let ids = Set(done.map(\.id))
        handedOver[connection.number] = pending.count == done.count ? nil : Array(pending.dropFirst(done.count))
        reserved.subtract(ids)
        do {
            try store.remove(ids)
        } catch {
            // The client has them; on disk they may wait still, and be
            // handed out again (at least once).
            logger.error("cannot mark \(ids.count) taken message(s) in the inbox: \(error); they may be delivered again")
        }
        onRoom?()
    }

    private func pumpAll() {
        for connection in takers.values { pump(connection) }
    }

    /// Hands waiting messages to a taker while it has room for them.
    private func pump(_ connection: ControlConnection) {
        guard !pumping, let store else { return }
        pumping = true
        // One disk write for everything written whole during this turn.
        defer {
            pumping = false
            settle(connection)
        }
        while takers[connection.number] != nil, !connection.isClosing, connection.queuedBytes < budget {
            let batch = routing.nextBatch(for: connection.number, entries: store.entries, reserved: reserved, budget: budget - connection.queuedBytes)
            guard let entry = batch.first else { return }
            let data: [UInt8]
            do { data = try store.data(of: entry) } catch {
                logger.error("cannot read message \(entry.id) from the inbox: \(error)")
                return
            }
            let event = number(ControlEvent(seq: 0, type: .message, time: clock.now(), message: message(entry, data: data)))
            guard control.send(event, to: connection) else { return }
            handedOver[connection.number, default: []].append((entry.id, connection.queuedTotal))
            reserved.insert(entry.id)
            if routing.handed(1, to: connection.number) { finishTaker(connection.number) }
        }
    }

    private func finishTaker(_ number: Int) {
        routing.remove(number)
        takers[number] = nil
    }

    private func info(_ entry: InboxEntry, sender: Sender) -> InboxMessage {
        InboxMessage(id: entry.id, from: sender.uuid, peerId: entry.peerID, name: sender.name, received: entry.received, size: entry.size)
    }

    private func message(_ entry: InboxEntry, data: [UInt8]) -> MessageInfo {
        MessageInfo(from: lookUp(entry.peerID).uuid, peerId: entry.peerID, data: Data(data).base64EncodedString(), size: entry.size,
                    inbox: entry.id, received: entry.received)
    }
}
