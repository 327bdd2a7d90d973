import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// The datagram path (issue 26; docs/protocol.md §11): one UDP socket
/// for the daemon, one ``DatagramLink`` per connected session whose peer
/// speaks `datagrams`, and the clients' `datagrams` sockets
/// (``DatagramReceiver``).
///
/// A datagram is sent now or dropped now: nothing is queued, so nothing
/// waits behind a transfer and no memory grows. What arrives is checked
/// in order of cost: its length and kind, its index (a table lookup),
/// the replay window, then one decryption, then the per-peer rate.
/// The session is the control channel: it keys the link, says the peer's
/// index and port, and the link ends with it.
@MainActor
public final class DatagramDesk {
    /// Datagrams taken from one peer in one second, at most; more are
    /// dropped (`rate`) before any crypto.
    public static let maxPerPeerPerSecond = 200_000
    /// Datagrams read from the UDP socket at one wake-up, so the other
    /// sockets get their turn.
    static let readBatch = 256
    /// Client `datagrams` sockets open at once.
    public static let maxReceivers = 64

    private let socket: UDPSocket?
    /// Why there is no socket, when there is none.
    private let socketError: String?
    private var channel: PollChannel?
    /// The links, by this host's index.
    private var links: [UInt32: DatagramLink] = [:]
    /// The index of each session's link, by session number.
    private var indexes: [Int: UInt32] = [:]
    private var receivers: [ObjectIdentifier: DatagramReceiver] = [:]
    /// The counts of links that ended.
    private var ended = DatagramCounters()
    /// Dropped before any crypto.
    private var junk: UInt64 = 0
    /// Dropped by the kernel at the UDP socket, its buffer full (the
    /// socket's own count, as the last datagram read said it).
    private var kernelDropped: UInt32 = 0
    /// The sessions, by peer: the daemon's one table.
    private let sessions: SessionTable
    /// Each app's state with each peer.
    private let appSessions: AppSessions
    private let logger: Logger
    private let clock: DaemonClock
    /// One datagram being read, and one being built: allocated once.
    private let readBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)
    private let sendBuffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 2_048, alignment: 16)

    /// A desk over `socket` (``UDPSocket``, bound by the daemon before its
    /// TXT record is made, which carries the port); with no socket when
    /// none could be opened: every peer's path is then `off`, and the
    /// daemon runs on.
    init(socket: Result<UDPSocket, SystemError>, sessions: SessionTable, appSessions: AppSessions, logger: Logger, clock: DaemonClock) {
        self.sessions = sessions
        self.appSessions = appSessions
        self.logger = logger
        self.clock = clock
        switch socket {
        case .success(let opened):
            self.socket = opened
            socketError = nil
        case .failure(let error):
            self.socket = nil
            socketError = error.description
            logger.warning("no datagram path: \(error.description)")
        }
    }

    isolated deinit {
        readBuffer.deallocate()
        sendBuffer.deallocate()
    }

    /// The UDP port (0: no socket).
    public var port: UInt16 { socket?.port ?? 0 }

    /// Starts reading the UDP socket.
    public func start() {
        guard let socket, channel == nil else { return }
        channel = PollChannel(descriptor: socket.descriptor, onReadable: { [weak self] in self?.readable() }, onWritable: {})
    }

    /// Closes the socket and every client's datagram socket.
    public func stop() {
        for receiver in Array(receivers.values) { receiver.finish() }
        channel?.close()
        channel = nil
    }

    // MARK: Sessions

    /// A session is connected: its link opens, and the peer hears where
    /// datagrams for it go. Nothing for a peer without `datagrams`.
    public func sessionUp(_ session: PeerSession) { _ = link(for: session) }

    /// The peer's `datagramPath`: where its datagrams go, and probing starts.
    public func session(_ session: PeerSession, datagramPath index: UInt32, port: UInt16) {
        guard let link = link(for: session) else { return }
        link.remoteIndex = index
        link.remotePort = port
        link.address = port == 0 ? nil : socket.flatMap { session.datagramAddress(port: port, mapped: $0.dualStack) }
        perform(link.path.learned(usable: link.address != nil, now: clock.now()), on: link)
    }

    /// The session ended: its link goes, and its keys with it.
    public func sessionDown(_ session: PeerSession) {
        guard let index = indexes.removeValue(forKey: session.number), let link = links.removeValue(forKey: index) else { return }
        ended.add(link.counters)
    }

    /// The session's link, opened on first use for a connected session
    /// whose peer speaks datagrams (its ciphers are taken once).
    private func link(for session: PeerSession) -> DatagramLink? {
        if let index = indexes[session.number] { return links[index] }
        guard session.speaksDatagrams, session.isConnected, !session.isForPairing, let ciphers = session.takeDatagramCiphers() else { return nil }
        var index: UInt32 = 0
        // A random index: a guess at another session's costs a lookup and
        // a failed decryption at most; zero is never used.
        while index == 0 || links[index] != nil {
            index = Sodium.randomBytes(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        }
        let link = DatagramLink(index: index, session: session, ciphers: ciphers)
        links[index] = link
        indexes[session.number] = index
        session.sendDatagramPath(index: index, port: port)
        return link
    }

    /// Once a second: probes that are due, and the per-peer bound's second.
    public func tick(now: Date) {
        for link in links.values {
            link.thisSecond = 0
            let before = link.path.state
            perform(link.path.tick(now: now), on: link)
            if link.path.state != before { logPath(link) }
        }
    }

    private func perform(_ actions: [DatagramPath.Action], on link: DatagramLink) {
        for case .probe(let id) in actions {
            let body = DatagramBody.encodeProbe(id, reply: false)
            _ = body.withUnsafeBytes { seal(UnsafeRawBufferPointer(rebasing: $0[...]), on: link, to: link.address) }
        }
    }

    private func logPath(_ link: DatagramLink) {
        let name = link.session?.remotePeerID ?? "session \(link.sessionNumber)"
        logger.info("datagram path to \(name): \(link.path.state.rawValue)")
    }

    // MARK: Status

    /// `peer`'s `datagrams`: nil without a connected session.
    public func info(for peer: UUID) -> DatagramInfo? {
        guard let session = sessions[peer], session.isConnected else { return nil }
        guard session.speaksDatagrams else { return DatagramInfo(path: "unsupported") }
        if let index = indexes[session.number], let link = links[index] {
            var info = link.info
            if socket == nil { info.path = DatagramPath.State.off.rawValue }
            return info
        }
        return DatagramInfo(path: DatagramPath.State.waiting.rawValue)
    }

    /// `status`'s `datagrams`.
    public var status: DatagramStatus {
        var all = ended
        for link in links.values { all.add(link.counters) }
        return DatagramStatus(port: socket.map { Int($0.port) }, error: socketError, sent: all.sent, received: all.received,
                              dropped: all.droppedByName, junk: junk, kernelDropped: UInt64(kernelDropped), receivers: receivers.count)
    }

    // MARK: Sending

    /// Sends `data` of `app` to `peer` now, or says why it cannot go. The
    /// caller checked that the client holds the app, and the size
    /// (``DatagramBody/maxData(for:)``).
    public func send(to peer: PeerSnapshot, app: AppName, _ data: UnsafeRawBufferPointer) -> Result<DatagramSendResult, ControlError> {
        guard let session = sessions[peer.id], session.isConnected else {
            return .failure(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first"))
        }
        // An app's datagrams need the app connected with the peer, as its
        // messages do; the default app's, a session that carries it.
        if app.isDefault, !session.carriesDefault { return .failure(.appOnly(peer.name, app: session.admission)) }
        if !app.isDefault, appSessions.state(peer.id, app) != .connected {
            return .failure(ControlError(.notConnected, "app '\(app.text)' is not connected with '\(peer.name)'; invite it first (peerctl --app \(app.text) invite \(peer.name))"))
        }
        guard session.speaksDatagrams else {
            return .failure(.unsupported(.datagrams, peer: peer.name, release: session.remoteHello?.release ?? PeerHello.silentRelease))
        }
        guard socket != nil else {
            return .failure(ControlError(.unreachable, "this host has no datagram socket (\(socketError ?? "not opened")); see peerctl status"))
        }
        guard let link = link(for: session) else {
            return .failure(ControlError(.notConnected, "the session with '\(peer.name)' carries no datagrams"))
        }
        switch link.path.state {
        case .off:
            return .failure(ControlError(.unreachable, "'\(peer.name)' has no datagram socket; its log says why"))
        case .blocked:
            return .failure(ControlError(.unreachable, "datagrams do not cross between this host and '\(peer.name)': no probe was answered (is UDP port \(link.remotePort ?? 0) blocked?); see peerctl doctor \(peer.name)"))
        case .waiting:
            link.counters.drop(.noPath)
            return .success(DatagramSendResult(sent: false, dropped: DatagramDrop.noPath.rawValue, bytes: data.count))
        case .probing, .up:
            break
        }
        let dropped = sendData(data, app: app, on: link)
        return .success(DatagramSendResult(sent: dropped == nil, dropped: dropped?.rawValue, bytes: data.count))
    }

    /// A record a client wrote on its `datagrams` socket: true when sent.
    func sendRecord(_ record: UnsafeRawBufferPointer, app: AppName) -> Bool {
        guard let (peer, offset) = DatagramRecord.parseSend(record), record.count - offset <= DatagramBody.maxData(for: app),
              let session = sessions[peer], session.isConnected, app.isDefault ? session.carriesDefault : appSessions.state(peer, app) == .connected,
              let index = indexes[session.number], let link = links[index] else { return false }
        guard link.path.state == .up || link.path.state == .probing else {
            if link.path.state == .waiting { link.counters.drop(.noPath) }
            return false
        }
        return sendData(UnsafeRawBufferPointer(rebasing: record[offset...]), app: app, on: link) == nil
    }

    /// Seals and sends one data datagram; nil when sent, or why it dropped.
    private func sendData(_ data: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) -> DatagramDrop? {
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
        return sealAndSend(count: 2 + nameLength + data.count, on: link, to: link.address, counted: true)
    }

    /// Seals a probe's `body` (copied after the header) and sends it to
    /// `address`. Probes are not counted: the counts are the clients' data.
    private func seal(_ body: UnsafeRawBufferPointer, on link: DatagramLink, to address: DatagramAddress?) -> DatagramDrop? {
        UnsafeMutableRawBufferPointer(rebasing: sendBuffer[DatagramHeader.length..<(DatagramHeader.length + body.count)]).copyMemory(from: body)
        return sealAndSend(count: body.count, on: link, to: address, counted: false)
    }

    /// Seals the `count` body bytes already in ``sendBuffer`` after the
    /// header, with the next counter, and sends the datagram.
    private func sealAndSend(count: Int, on link: DatagramLink, to address: DatagramAddress?, counted: Bool) -> DatagramDrop? {
        let outcome = sealAndSend(count: count, on: link, to: address)
        if counted {
            if let outcome { link.counters.drop(outcome) } else { link.counters.sent += 1 }
        }
        return outcome
    }

    private func sealAndSend(count: Int, on link: DatagramLink, to address: DatagramAddress?) -> DatagramDrop? {
        guard let socket, let address, let remoteIndex = link.remoteIndex else { return .noPath }
        // The last counter is never used: its nonce is Noise's reserved one.
        guard link.nextCounter < UInt64.max - 1 else { return .sendFailed }
        let counter = link.nextCounter
        link.nextCounter += 1
        DatagramHeader(receiverIndex: remoteIndex, counter: counter).write(into: sendBuffer)
        let total = DatagramHeader.length + count + DatagramHeader.tagLength
        let datagram = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[0..<total])
        link.sendCipher.seal(datagram, counter: counter, count: count)
        switch socket.send(UnsafeRawBufferPointer(datagram), to: address) {
        case .sent: return nil
        case .wouldBlock: return .wouldBlock
        case .failed: return .sendFailed
        }
    }

    // MARK: Receiving

    /// Reads what waits on the UDP socket, a batch at a time.
    private func readable() {
        guard let socket else { return }
        for _ in 0..<Self.readBatch {
            guard let (count, source, dropped) = socket.receive(into: readBuffer) else { return }
            if let dropped { kernelDropped = dropped }
            received(count: count, from: source)
        }
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
            let reply = DatagramBody.encodeProbe(id, reply: true)
            _ = reply.withUnsafeBytes { seal(UnsafeRawBufferPointer(rebasing: $0[...]), on: link, to: source) }
        case .probeReply(let id):
            if link.path.replied(id, now: clock.now()) { logPath(link) }
        case .data(let app, let from):
            link.counters.received += 1
            deliver(UnsafeRawBufferPointer(rebasing: body[from...]), app: app, on: link)
        }
    }

    /// Hands data of `app` to each of the app's clients taking datagrams.
    private func deliver(_ bytes: UnsafeRawBufferPointer, app: AppName, on link: DatagramLink) {
        guard let session = link.session, let peer = session.peerUUID, sessions.isCurrent(session),
              app.isDefault ? session.carriesDefault : appSessions.state(peer, app) == .connected else {
            return link.counters.drop(.noReceiver)
        }
        // The record: its header, then the data, built once in the send
        // buffer (free again by now) for every client of the app.
        let total = DatagramRecord.receiveHeader + bytes.count
        let record = UnsafeMutableRawBufferPointer(rebasing: sendBuffer[0..<total])
        if !bytes.isEmpty { UnsafeMutableRawBufferPointer(rebasing: record[DatagramRecord.receiveHeader...]).copyMemory(from: bytes) }
        var audience = 0
        for receiver in receivers.values where receiver.app == app && !receiver.finished {
            audience += 1
            if !receiver.deliver(record, from: peer) { link.counters.drop(.slowReceiver) }
        }
        if audience == 0 { link.counters.drop(.noReceiver) }
    }

    // MARK: Clients

    /// `datagrams`: `descriptor` (a `SOCK_SEQPACKET` socket) carries `app`'s
    /// datagrams both ways until it closes; `answer` is called then.
    public func open(_ descriptor: FileDescriptor, app: AppName, answer: @escaping @MainActor (ControlReply) -> Void) {
        guard DatagramReceiver.isSeqPacket(descriptor) else {
            descriptor.close()
            return answer(.error(ControlError(.invalidParams, "'datagrams' needs a SOCK_SEQPACKET socket: one record is one datagram")))
        }
        guard receivers.count < Self.maxReceivers else {
            descriptor.close()
            return answer(.error(ControlError(.busy, "\(Self.maxReceivers) datagram sockets are open; try again later")))
        }
        let receiver = DatagramReceiver(descriptor: descriptor, app: app, answer: answer,
                                        sendRecord: { [weak self] record, app in self?.sendRecord(record, app: app) ?? false },
                                        onFinished: { [weak self] ended in self?.receivers[ObjectIdentifier(ended)] = nil })
        receivers[ObjectIdentifier(receiver)] = receiver
        logger.info("datagram socket for \(app) opened")
    }
}
