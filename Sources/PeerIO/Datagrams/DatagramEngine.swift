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
/// Nothing is queued: a send is one `sendto` now or a drop now; what
/// arrives is checked cheapest first (length and kind, index, replay
/// window, one decryption, the per-peer rate).
/// `@unchecked Sendable` is safe: every field is touched on `queue` alone.
final class DatagramEngine: @unchecked Sendable {
    /// Datagrams taken from one peer in one second, at most.
    static let maxPerPeerPerSecond = 200_000
    /// Datagrams read from the UDP socket at one wake-up.
    static let readBatch = 256
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
    /// One datagram being read, and one being built: allocated once.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)
    private let sendBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)

    /// An engine over `socket` (nil: none could be opened).
    init(socket: UDPSocket?, logger: Logger, clock: DaemonClock) {
        self.socket = socket
        self.logger = logger
        self.clock = clock
    }

    deinit {
        readBuffer.deallocate()
        sendBuffer.deallocate()
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

    /// Once a second: probes that are due, and the per-peer bound's second.
    func tick(now: Date) {
        for link in links.values {
            link.thisSecond = 0
            let before = link.path.state
            perform(link.path.tick(now: now), on: link)
            if link.path.state != before { logPath(link) }
        }
    }

    private func perform(_ actions: [DatagramPath.Action], on link: DatagramLink) {
        for case .probe(let id) in actions {
            _ = DatagramBody.encodeProbe(id, reply: false).withUnsafeBytes { seal($0, on: link, to: link.address) }
        }
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

    /// A record a client wrote on its `datagrams` socket: true when sent.
    private func sendRecord(_ record: UnsafeRawBufferPointer, app: AppName) -> Bool {
        guard let (peer, offset) = DatagramRecord.parseSend(record), record.count - offset <= DatagramBody.maxData(for: app),
              let index = byPeer[peer], let link = links[index], link.audience.admits(app) else { return false }
        guard link.path.state == .up || link.path.state == .probing else {
            if link.path.state == .waiting { link.counters.drop(.noPath) }
            return false
        }
        return sendData(UnsafeRawBufferPointer(rebasing: record[offset...]), app: app, on: link) == nil
    }

    /// Seals and sends one data datagram, counted; nil when sent, or why it dropped.
    func sendData(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) -> DatagramDrop? {
        // The body: kind, the app's name, the data (DatagramBody's layout).
        let body = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[DatagramHeader.length...])
        body[0] = DatagramBody.dataKind
        var nameLength = 0
        for byte in app.text.utf8 {
            body[2 + nameLength] = byte
            nameLength += 1
        }
        body[1] = UInt8(nameLength)
        if data.count > 0 { UnsafeMutableRawBufferPointer(rebasing: body[(2 + nameLength)...]).copyMemory(from: data) }
        let outcome = sealAndSend(count: 2 + nameLength + data.count, on: link, to: link.address)
        if let outcome { link.counters.drop(outcome) } else { link.counters.sent += 1 }
        return outcome
    }

    /// Seals a probe's `body` and sends it to `address`. Probes are not
    /// counted: the counts are the clients' data.
    private func seal(_ body: UnsafeRawBufferPointer, on link: DatagramLink, to address: DatagramAddress?) -> DatagramDrop? {
        UnsafeMutableRawBufferPointer(rebasing: sendBuffer[DatagramHeader.length..<(DatagramHeader.length + body.count)]).copyMemory(from: body)
        return sealAndSend(count: body.count, on: link, to: address)
    }

    /// Seals the `count` body bytes already in ``sendBuffer`` after the
    /// header, with the next counter, and sends the datagram.
    private func sealAndSend(count: Int, on link: DatagramLink, to address: DatagramAddress?) -> DatagramDrop? {
        guard let socket, let address, let remoteIndex = link.remoteIndex else { return .noPath }
        // The last counter is never used: its nonce is Noise's reserved one.
        guard link.nextCounter < UInt64.max - 1 else { return .sendFailed }
        let counter = link.nextCounter
        link.nextCounter += 1
        DatagramHeader(receiverIndex: remoteIndex, counter: counter).write(into: sendBuffer)
        let datagram = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[0..<(DatagramHeader.length + count + DatagramHeader.tagLength)])
        link.sendCipher.seal(datagram, counter: counter, count: count)
        switch socket.send(UnsafeRawBufferPointer(datagram), to: address) {
        case .sent: return nil
        case .wouldBlock: return .wouldBlock
        case .failed: return .sendFailed
        }
    }

    // MARK: Receiving (on the queue)

    /// Reads what waits on the UDP socket, a batch at a time; a full batch
    /// goes on in a later turn of the queue (a read source fires on new
    /// data, not on data left unread), so clients' sends get their turn.
    private func readable() {
        guard let socket, source != nil else { return }
        for _ in 0..<Self.readBatch {
            guard let (count, source, dropped) = socket.receive(into: readBuffer) else { return }
            if let dropped { kernelDropped = dropped }
            received(count: count, from: source)
        }
        queue.async { [weak self] in self?.readable() }
    }

    /// One datagram of `count` bytes in ``readBuffer``, checked cheapest first.
    private func received(count: Int, from source: DatagramAddress) {
        guard count <= readBuffer.count else { return junk += 1 }
        let datagram = UnsafeMutableRawBufferPointer(rebasing: readBuffer[0..<count])
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
        guard link.thisSecond < Self.maxPerPeerPerSecond else { return link.counters.drop(.rate) }
        link.thisSecond += 1
        // The body is read where it was opened: no copy.
        let body = UnsafeRawBufferPointer(rebasing: datagram[DatagramHeader.length..<(DatagramHeader.length + length)])
        guard let parsed = try? DatagramBody.parse(body) else { return link.counters.drop(.malformed) }
        switch parsed {
        case .probe(let id):
            // Answered where it came from: an address that changed still
            // gets its answer, and moves nothing (the session keeps its own).
            _ = DatagramBody.encodeProbe(id, reply: true).withUnsafeBytes { seal($0, on: link, to: source) }
        case .probeReply(let id):
            if link.path.replied(id, now: clock.now()) { logPath(link) }
        case .data(let app, let from):
            link.counters.received += 1
            deliver(UnsafeRawBufferPointer(rebasing: body[from...]), app: app, on: link)
        }
    }

    /// Hands data of `app` to each of the app's clients taking datagrams.
    func deliver(_ bytes: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) {
        guard link.audience.admits(app) else { return link.counters.drop(.noReceiver) }
        let peer = link.audience.peerBytes
        // The record: its header, then the data, built once in the send
        // buffer (free again by now) for every client of the app.
        let record = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[0..<(DatagramRecord.receiveHeader + bytes.count)])
        if !bytes.isEmpty { UnsafeMutableRawBufferPointer(rebasing: record[DatagramRecord.receiveHeader...]).copyMemory(from: bytes) }
        var audience = 0
        for receiver in receivers.values where receiver.app == app && !receiver.finished {
            audience += 1
            if !receiver.deliver(record, from: peer) { link.counters.drop(.slowReceiver) }
        }
        if audience == 0 { link.counters.drop(.noReceiver) }
    }

    // MARK: Clients (on the queue)

    /// A client's `datagrams` socket for `app`; its answer comes when it closes.
    func open(_ descriptor: FileDescriptor, app: AppName, answer: @escaping @MainActor (ControlReply) -> Void) -> ControlError? {
        guard receivers.count < Self.maxReceivers else {
            descriptor.close()
            return ControlError(.busy, "\(Self.maxReceivers) datagram sockets are open; try again later")
        }
        let receiver = DatagramReceiver(descriptor: descriptor, app: app, queue: queue, answer: answer,
                                        sendRecord: { [unowned self] record, app in self.sendRecord(record, app: app) },
                                        onFinished: { [unowned self] ended in self.receivers[ObjectIdentifier(ended)] = nil })
        receivers[ObjectIdentifier(receiver)] = receiver
        return nil
    }
}
