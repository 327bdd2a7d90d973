import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

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
///
/// An actor whose executor is its queue (``QueueExecutor``): the compiler
/// checks that its state is touched there alone. The desk reaches it with
/// ``sync(_:)`` (a `queue.sync`, isolated by `assumeIsolated`), and the
/// poller hands it each batch on the queue in the same way.
actor DatagramEngine {
    /// Datagrams taken from one peer in one second, at most, by default.
    static let maxPerPeerPerSecond = 500_000
    /// Datagrams read from the UDP socket at one wake-up, at most (about).
    static let readBatch = 1_024
    /// Messages (datagrams, or trains of them) read a `recvmmsg`.
    static let receiveCapacity = 16
    /// A received message's slot: a train is at most one IP packet's
    /// payload (64 KiB); touched only as far as what arrives.
    static let receiveSlot = 65_536
    /// The largest valid datagram: the header, the largest body, the tag
    /// (1,232 bytes). A longer one is junk, whatever it says.
    static let maxDatagram = DatagramHeader.length + DatagramHeader.maxPayload + DatagramHeader.tagLength
    /// Client `datagrams` sockets open at once.
    static let maxReceivers = 64
    /// The send buffer of peerd's end of a client's `datagrams` socket
    /// (the kernel caps it at `net.core.wmem_max` and doubles it): some
    /// 2,700 records of 100 bytes, 12 ms at 220,000 a second.
    static let clientSocketBuffer: Int32 = 1 << 20

    /// The engine's executor: its one serial queue.
    nonisolated let executor: QueueExecutor
    /// The queue everything of the engine runs on.
    nonisolated var queue: DispatchQueue { executor.queue }
    /// Runs the engine's jobs on its queue.
    nonisolated var unownedExecutor: UnownedSerialExecutor { executor.asUnownedSerialExecutor() }
    /// The socket, if one could be opened.
    nonisolated let socket: UDPSocket?
    /// Watches the UDP socket and the clients' sockets, reporting on
    /// ``queue`` (nil: it could not be made, and ``pollerError`` says why).
    /// It, and the state below that is not private, is internal only for
    /// `DatagramEngine+Clients.swift`.
    let poller: QueuePoller?
    private let pollerError: SystemError?
    /// Whether the UDP socket is watched, and the clients' may be.
    var running = false
    /// The UDP socket's token with the poller.
    private static let socketToken: UInt64 = 0
    /// The next client socket's token: never reused.
    var nextToken: UInt64 = 1
    /// The links, by this host's index.
    var links: [UInt32: DatagramLink] = [:]
    /// The index of each session's link, by session number.
    private var indexes: [Int: UInt32] = [:]
    /// The index of each peer's current session's link.
    var byPeer: [UUID: UInt32] = [:]
    /// The clients' sockets, by token.
    var receivers: [UInt64: DatagramReceiver] = [:]
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
    let records = MessageBatch(capacity: DatagramOutbox.capacity, slotSize: DatagramRecord.maxRecord + 1)
    /// What this turn sends (nil without a socket).
    let outbox: DatagramOutbox?
    /// What this turn hands to clients.
    private let delivery = DatagramDelivery()

    /// An engine over `socket` (nil: none could be opened), taking at most
    /// `perPeerPerSecond` datagrams a second from each peer.
    init(socket: UDPSocket?, logger: Logger, clock: DaemonClock, perPeerPerSecond: Int = DatagramEngine.maxPerPeerPerSecond) {
        executor = QueueExecutor(label: "peerd.datagrams", qos: .userInteractive)
        self.socket = socket
        self.logger = logger
        self.clock = clock
        self.perPeerPerSecond = perPeerPerSecond
        outbox = socket.map(DatagramOutbox.init)
        do {
            poller = try QueuePoller(queue: executor.queue)
            pollerError = nil
        } catch {
            poller = nil
            pollerError = error
        }
    }

    /// Runs `body` on the engine's queue, isolated to it, and returns what
    /// it gives.
    nonisolated func sync<T: Sendable>(_ body: (isolated DatagramEngine) -> T) -> T {
        queue.sync {
            // The caller waits while `body` runs on the queue: nothing it
            // captured is used by two threads at once. (The one place the
            // engine tells the compiler so; Swift 6.3's region checker
            // cannot see it through `queue.sync`.)
            nonisolated(unsafe) let body = body
            return assumeIsolated { body($0) }
        }
    }

    /// Starts reading the UDP socket.
    nonisolated func start() {
        sync { $0.startOnQueue() }
    }

    private func startOnQueue() {
        guard let socket, !running else { return }
        guard let poller else {
            return logger.warning("no datagram path: \(pollerError?.description ?? "no poller")")
        }
        do throws(SystemError) {
            // The poller hands each batch over inside a `queue.sync`.
            try poller.start { [weak self] reports in self?.assumeIsolated { $0.handle(reports) } }
            try poller.watch(socket.descriptor, token: Self.socketToken)
            running = true
        } catch {
            logger.warning("no datagram path: \(error.description)")
        }
    }

    /// Closes every client's socket and the UDP socket.
    nonisolated func stop() {
        sync { engine in
            for receiver in Array(engine.receivers.values) { receiver.finish(in: engine) }
            engine.running = false
            engine.poller?.stop()
            engine.socket?.close()
        }
    }

    /// A batch of the poller's reports, on the queue: each descriptor is
    /// read, then watched again (one-shot: what is left unread reports
    /// again at once, after the other descriptors had their turn).
    private func handle(_ reports: [Epoll.Report]) {
        guard running else { return }
        for report in reports {
            if report.token == Self.socketToken, let socket {
                readable()
                do { try poller?.rearm(socket.descriptor, token: Self.socketToken) } catch { logger.warning("the datagram socket is no longer watched: \(error.description)") }
            } else {
                receivers[report.token]?.readable(in: self)
            }
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

    /// Seals and sends one data datagram now, counted: nil when sent, or why it dropped.
    func sendData(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) -> DatagramDrop? {
        guard let outbox else { return .noPath }
        if let dropped = addData(data, app: app, on: link, in: outbox) { return dropped }
        let (sent, dropped) = outbox.flush()
        return sent == 1 ? nil : dropped ?? .sendFailed
    }

    /// Prepares one data datagram in `outbox`: its body is the kind, the
    /// app's name and the data (``DatagramBody``'s layout).
    func addData(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink, in outbox: DatagramOutbox) -> DatagramDrop? {
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
    /// ``readBatch`` datagrams; the rest reports again once the socket is
    /// watched again, after the clients' sockets had their turn.
    private func readable() {
        guard let socket else { return }
        var read = 0
        while read < Self.readBatch {
            let (count, dropped) = socket.receive(into: inbound)
            if let dropped { kernelDropped = dropped }
            for slot in 0..<count {
                let length = inbound.length(slot)
                guard length <= inbound.slotSize else {
                    junk += 1
                    continue
                }
                // A train is split where its sender's segments were.
                let segment = UDPSocket.segmentSize(of: slot, in: inbound) ?? length
                var offset = 0
                repeat {
                    let end = min(offset + segment, length)
                    received(UnsafeMutableRawBufferPointer(rebasing: inbound.slot(slot)[offset..<end]), from: slot)
                    read += 1
                    offset = end
                } while offset < length
            }
            // Answers to probes go now, the data to its clients.
            outbox?.flush()
            delivery.flush(to: receivers.values, in: self)
            guard count == inbound.capacity else { return }
        }
    }

    /// One datagram, read into `slot` of ``inbound``, checked cheapest first.
    private func received(_ datagram: UnsafeMutableRawBufferPointer, from slot: Int) {
        guard datagram.count <= Self.maxDatagram else { return junk += 1 }
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
        delivery.flush(to: receivers.values, in: self)
    }
}
