import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// The datagram path's data plane (issue 26): the UDP socket, each
/// session's ``DatagramLink`` and the clients' ``DatagramReceiver``s, all
/// on one serial queue of their own. A datagram is read, checked, opened
/// and handed to its clients (or read from a client, sealed and sent)
/// there, never on the main actor: a transfer that keeps the main actor
/// busy does not delay it (issue 26, "never behind the bulk"). The
/// ``DatagramDesk`` (main actor) tells it of sessions and asks it for
/// counts, through ``sync(_:)``.
///
/// Nothing is queued past the turn: a send goes in this turn's `sendmmsg`
/// or is dropped in it (``DatagramOutbox``); what arrives is read many a
/// `recvmmsg`, checked cheapest first (length and kind, index, replay
/// window, one decryption, the per-peer rate), and handed to the clients
/// many records a call (``DatagramDelivery``).
/// `@unchecked Sendable` is safe: every field is touched on `queue` alone.
final class DatagramEngine: @unchecked Sendable {
    /// Datagrams taken from one peer in one second, at most, by default.
    static let maxPerPeerPerSecond = 500_000
    /// Datagrams read from the UDP socket at one wake-up.
    static let readBatch = 256
    /// Datagrams read a `recvmmsg`.
    static let receiveCapacity = 32
    /// A received datagram's slot: the largest valid datagram is 1,232
    /// bytes; a longer one is junk, whatever it says.
    static let receiveSlot = 1_280
    /// Client `datagrams` sockets open at once.
    static let maxReceivers = 64

    /// The queue every field belongs to.
    let queue = DispatchQueue(label: "peerd.datagrams", qos: .userInteractive)
    /// The socket, if one could be opened.
    let socket: UDPSocket?
    private var source: (any DispatchSourceRead)?
    /// The links, by this host's index.
    private var links: [UInt32: DatagramLink] = [:]
    /// The index of each session's link, by session number.
    private var indexes: [Int: UInt32] = [:]
    /// The index of each peer's current session's link.
    private var byPeer: [UUID: UInt32] = [:]
    private var receivers: [ObjectIdentifier: DatagramReceiver] = [:]
    /// The counts of links that ended.
    private var ended = DatagramCounters()
    /// Dropped before any crypto.
    private var junk: UInt64 = 0
    /// Dropped by the kernel at the UDP socket, its buffer full (the
    /// socket's own count, as the last datagram read said it).
    private var kernelDropped: UInt32 = 0
    private let logger: Logger
    private let clock: DaemonClock
    /// Datagrams taken from one peer in one second, at most.
    private let perPeerPerSecond: Int
    /// Datagrams read from the UDP socket, a `recvmmsg` at a time.
    private let inbound = MessageBatch(capacity: DatagramEngine.receiveCapacity, slotSize: DatagramEngine.receiveSlot)
    /// Records read from the clients, a `recvmmsg` at a time (every client
    /// reads into it, on this queue, one batch at a time).
    private let records = MessageBatch(capacity: DatagramOutbox.capacity, slotSize: DatagramRecord.maxRecord + 1)
    /// What this turn sends (nil without a socket).
    private let outbox: DatagramOutbox?
    /// What this turn hands to clients.
    private let delivery = DatagramDelivery()

    /// An engine over `socket` (nil: none could be opened), taking at most
    /// `perPeerPerSecond` datagrams a second from each peer.
    init(socket: UDPSocket?, logger: Logger, clock: DaemonClock, perPeerPerSecond: Int = DatagramEngine.maxPerPeerPerSecond) {
        self.socket = socket
        self.logger = logger
        self.clock = clock
        self.perPeerPerSecond = perPeerPerSecond
        outbox = socket.map(DatagramOutbox.init)
    }

    /// Runs `body` on the engine's queue and returns what it gives.
    func sync<T>(_ body: (DatagramEngine) -> T) -> T { queue.sync { body(self) } }

    /// Starts reading the UDP socket.
    func start() {
        guard let socket else { return }
        queue.sync {
            guard source == nil else { return }
            let made = DispatchSource.makeReadSource(fileDescriptor: socket.descriptor.rawValue, queue: queue)
            made.setEventHandler { [weak self] in self?.readable() }
            made.resume()
            source = made
        }
    }

    /// Closes every client's socket and the UDP socket.
    func stop() {
        queue.sync {
            for receiver in Array(receivers.values) { receiver.finish() }
            if let socket {
                let descriptor = socket.descriptor
                if let source {
                    source.setCancelHandler { descriptor.close() }
                    source.cancel()
                } else {
                    descriptor.close()
                }
            }
            source = nil
        }
    }

    // MARK: Links (on the queue)

    /// The link of session `number`, if it has one.
    func link(ofSession number: Int) -> DatagramLink? { indexes[number].flatMap { links[$0] } }

    /// A new link for session `number`: its index, random and unused (zero
    /// never is): a guess at another session's costs a lookup and a failed
    /// decryption at most.
    func addLink(session number: Int, name: String, ciphers: (send: DatagramCipher, receive: DatagramCipher)) -> DatagramLink {
        var index: UInt32 = 0
        while index == 0 || links[index] != nil {
            index = Sodium.randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        let link = DatagramLink(index: index, sessionNumber: number, name: name, ciphers: ciphers)
        links[index] = link
        indexes[number] = index
        return link
    }

    /// Who may receive from `link`, as the session layer says now; the
    /// peer's current link is the one its sends go through.
    func setAudience(_ audience: DatagramLink.Audience, of link: DatagramLink) {
        if let old = link.audience.peer, byPeer[old] == link.localIndex, !(audience.current && audience.peer == old) { byPeer[old] = nil }
        link.audience = audience
        if audience.current, let peer = audience.peer { byPeer[peer] = link.localIndex }
    }

    /// The peer said where its datagrams go: probing starts.
    func learned(_ link: DatagramLink, index: UInt32, port: UInt16, address: DatagramAddress?, now: Date) {
        link.remoteIndex = index
        link.remotePort = port
        link.address = address
        perform(link.path.learned(usable: address != nil, now: now), on: link)
    }

    /// Session `number` ended: its link goes, and its keys with it.
    func removeLink(session number: Int) {
        guard let index = indexes.removeValue(forKey: number), let link = links.removeValue(forKey: index) else { return }
        if let peer = link.audience.peer, byPeer[peer] == index { byPeer[peer] = nil }
        ended.add(link.counters)
    }

    /// Once a second: probes that are due, and the per-peer bound's
    /// second; buffers a burst used go back once idle.
    func tick(now: Date) {
        for link in links.values {
            link.thisSecond = 0
            let before = link.path.state
            perform(link.path.tick(now: now), on: link)
            if link.path.state != before { logPath(link) }
        }
        inbound.releaseIfIdle()
        records.releaseIfIdle()
        outbox?.releaseIfIdle()
        delivery.releaseIfIdle()
    }

    private func perform(_ actions: [DatagramPath.Action], on link: DatagramLink) {
        for case .probe(let id) in actions { sendProbe(id, reply: false, on: link, to: link.address) }
    }

    private func logPath(_ link: DatagramLink) {
        logger.info("datagram path to \(link.name): \(link.path.state.rawValue)")
    }

    /// `status`'s figures.
    func status() -> DatagramStatus {
        var all = ended
        for link in links.values { all.add(link.counters) }
        return DatagramStatus(port: socket.map { Int($0.port) }, sent: all.sent, received: all.received, dropped: all.droppedByName,
                              junk: junk, kernelDropped: UInt64(kernelDropped), receivers: receivers.count)
    }

    // MARK: Sending (on the queue)

    /// Records a client of `app` wrote, read into `batch`'s first `count`
    /// slots, sent in one `sendmmsg`: how many went, and how many were
    /// refused (not a record, too long, no such peer or app, no path, or
    /// dropped by the socket).
    private func sendRecords(_ batch: MessageBatch, count: Int, app: AppName) -> (sent: Int, refused: Int) {
        guard let outbox else { return (0, count) }
        for index in 0..<count {
            let length = batch.length(index)
            guard length <= DatagramRecord.maxRecord else { continue }
            queueRecord(UnsafeRawBufferPointer(rebasing: batch.slot(index)[0..<length]), app: app, in: outbox)
        }
        let sent = outbox.flush().sent
        return (sent, count - sent)
    }

    /// Prepares one record's datagram in `outbox`, when its peer, app and path allow.
    private func queueRecord(_ record: UnsafeRawBufferPointer, app: AppName, in outbox: DatagramOutbox) {
        guard let (peer, offset) = DatagramRecord.parseSend(record), record.count - offset <= DatagramBody.maxData(for: app),
              let index = byPeer[peer], let link = links[index], link.audience.admits(app) else { return }
        guard link.path.state == .up || link.path.state == .probing else {
            if link.path.state == .waiting { link.counters.drop(.noPath) }
            return
        }
        _ = addData(UnsafeRawBufferPointer(rebasing: record[offset...]), app: app, on: link, in: outbox)
    }

    /// Seals and sends one data datagram now, counted: nil when sent, or why it dropped.
    func sendData(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) -> DatagramDrop? {
        guard let outbox else { return .noPath }
        if let dropped = addData(data, app: app, on: link, in: outbox) { return dropped }
        let (sent, dropped) = outbox.flush()
        return sent == 1 ? nil : dropped ?? .sendFailed
    }

    /// Prepares one data datagram in `outbox`: its body is the kind, the
    /// app's name and the data (``DatagramBody``'s layout).
    private func addData(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink, in outbox: DatagramOutbox) -> DatagramDrop? {
        outbox.add(on: link, to: link.address, counted: true) { body in
            body[0] = DatagramBody.dataKind
            var nameLength = 0
            for byte in app.text.utf8 {
                body[2 + nameLength] = byte
                nameLength += 1
            }
            body[1] = UInt8(nameLength)
            if data.count > 0 { UnsafeMutableRawBufferPointer(rebasing: body[(2 + nameLength)...]).copyMemory(from: data) }
            return 2 + nameLength + data.count
        }
    }

    /// Sends a probe, or the answer to one, to `address` now. Probes are
    /// not counted: the counts are the clients' data.
    private func sendProbe(_ id: UInt64, reply: Bool, on link: DatagramLink, to address: DatagramAddress?) {
        guard let outbox else { return }
        let body = DatagramBody.encodeProbe(id, reply: reply)
        let added = outbox.add(on: link, to: address, counted: false) { room in
            body.withUnsafeBytes { room.copyMemory(from: $0) }
            return body.count
        }
        if added == nil { outbox.flush() }
    }

    // MARK: Receiving (on the queue)

    /// Reads what waits on the UDP socket, a `recvmmsg` at a time, up to
    /// ``readBatch`` datagrams; a full batch goes on in a later turn of
    /// the queue (a read source fires on new data, not on data left
    /// unread), so clients' sends get their turn.
    private func readable() {
        guard let socket, source != nil else { return }
        var read = 0
        while read < Self.readBatch {
            let (count, dropped) = socket.receive(into: inbound)
            if let dropped { kernelDropped = dropped }
            for index in 0..<count { received(index) }
            // Answers to probes go now, the data to its clients.
            outbox?.flush()
            delivery.flush(to: receivers.values)
            guard count == inbound.capacity else { return }
            read += count
        }
        queue.async { [weak self] in self?.readable() }
    }

    /// Datagram `slot` of ``inbound``, checked cheapest first.
    private func received(_ slot: Int) {
        let count = inbound.length(slot)
        guard count <= Self.receiveSlot else { return junk += 1 }
        let datagram = UnsafeMutableRawBufferPointer(rebasing: inbound.slot(slot)[0..<count])
        guard let header = try? DatagramHeader.parse(UnsafeRawBufferPointer(datagram)), let link = links[header.receiverIndex] else {
            return junk += 1
        }
        switch link.window.check(header.counter) {
        case .fresh: break
        case .duplicate: return link.counters.drop(.duplicate)
        case .tooOld, .exhausted: return link.counters.drop(.tooOld)
        }
        guard let length = link.receiveCipher.open(datagram, counter: header.counter) else { return link.counters.drop(.authFailed) }
        link.window.accept(header.counter)
        // Counted once it authenticated: forgeries with a known index can
        // cost a decryption each, but never use up the real peer's second.
        guard link.thisSecond < perPeerPerSecond else { return link.counters.drop(.rate) }
        link.thisSecond += 1
        // The body is read where it was opened: no copy.
        let body = UnsafeRawBufferPointer(rebasing: datagram[DatagramHeader.length..<(DatagramHeader.length + length)])
        guard let parsed = try? DatagramBody.parse(body) else { return link.counters.drop(.malformed) }
        switch parsed {
        case .probe(let id):
            // Answered where it came from: an address that changed still
            // gets its answer, and moves nothing (the session keeps its own).
            sendProbe(id, reply: true, on: link, to: inbound.address(slot))
        case .probeReply(let id):
            if link.path.replied(id, now: clock.now()) { logPath(link) }
        case .data(let app, let from):
            link.counters.received += 1
            delivery.add(UnsafeRawBufferPointer(rebasing: body[from...]), app: app, on: link)
        }
    }

    /// Hands data of `app` that the session carried to each of the app's clients taking datagrams.
    func deliver(_ bytes: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) {
        delivery.add(bytes, app: app, on: link)
        delivery.flush(to: receivers.values)
    }

    // MARK: Clients (on the queue)

    /// A client's `datagrams` socket for `app`; its answer comes when it closes.
    func open(_ descriptor: FileDescriptor, app: AppName, answer: @escaping @MainActor (ControlReply) -> Void) -> ControlError? {
        guard receivers.count < Self.maxReceivers else {
            descriptor.close()
            return ControlError(.busy, "\(Self.maxReceivers) datagram sockets are open; try again later")
        }
        let receiver = DatagramReceiver(descriptor: descriptor, app: app, queue: queue, records: records, answer: answer,
                                        sendRecords: { [unowned self] batch, count, app in self.sendRecords(batch, count: count, app: app) },
                                        onFinished: { [unowned self] ended in self.receivers[ObjectIdentifier(ended)] = nil })
        receivers[ObjectIdentifier(receiver)] = receiver
        return nil
    }
}
