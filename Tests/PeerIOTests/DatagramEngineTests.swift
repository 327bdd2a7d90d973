import XCTest
import Glibc
import PeerCore
import PeerSystem
@testable import PeerIO
import PeerProtocol

/// The datagram engine on loopback (issue 26): two engines, each with its
/// UDP socket and one link keyed as a session's would be, and a client's
/// `datagrams` socket on the receiving side. What the lab cannot reach
/// cheaply is checked here: the per-peer bound, an ended session's
/// datagrams, the kernel's drop count, and batches larger than one call.
final class DatagramEngineTests: XCTestCase {
    private struct Pair {
        let sender: DatagramEngine
        let receiver: DatagramEngine
        /// The receiving client's end of its `datagrams` socket.
        let client: FileDescriptor
        let peer: UUID
    }

    private var opened: [FileDescriptor] = []
    private var engines: [DatagramEngine] = []

    override func tearDown() {
        for engine in engines { engine.stop() }
        for descriptor in opened { descriptor.close() }
        super.tearDown()
    }

    private func engine(perPeer: Int = DatagramEngine.maxPerPeerPerSecond) throws -> DatagramEngine {
        let made = DatagramEngine(socket: try UDPSocket(port: 0), logger: Logger(level: .error), clock: .system, perPeerPerSecond: perPeer)
        engines.append(made)
        return made
    }

    private static func cipher(_ bytes: [UInt8]) -> DatagramCipher {
        var key = bytes
        return DatagramCipher(key: &key)
    }

    /// Where `engine` takes datagrams, on loopback, as its peer would name it.
    private func loopback(of engine: DatagramEngine, mapped: Bool) throws -> DatagramAddress {
        let socket = try XCTUnwrap(engine.socket)
        let fd = Glibc.socket(AF_INET, Int32(SOCK_DGRAM.rawValue), 0)
        defer { close(fd) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = socket.port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0, "connect to loopback")
        return try XCTUnwrap(DatagramAddress.peer(of: FileDescriptor(rawValue: fd), port: socket.port, mapped: mapped))
    }

    /// Two engines with one link each way, and a client of the default app
    /// taking the receiver's datagrams.
    private func pair(perPeer: Int = DatagramEngine.maxPerPeerPerSecond) throws -> Pair {
        let sender = try engine(), receiver = try engine(perPeer: perPeer)
        let forward = [UInt8](repeating: 0x11, count: 32), backward = [UInt8](repeating: 0x22, count: 32)
        let peer = UUID()
        let audience = DatagramLink.Audience(peer: peer, current: true, carriesDefault: true, apps: [])
        let toReceiver = try loopback(of: receiver, mapped: try XCTUnwrap(sender.socket).dualStack)
        let toSender = try loopback(of: sender, mapped: try XCTUnwrap(receiver.socket).dualStack)
        // Links live inside each engine's isolation: the tests name them
        // by their session (1) there, and keep only their indexes.
        let receiverCiphers = (send: Self.cipher(backward), receive: Self.cipher(forward))
        let senderCiphers = (send: Self.cipher(forward), receive: Self.cipher(backward))
        let receiverIndex = receiver.sync { engine in
            let link = engine.addLink(session: 1, name: "sender", ciphers: receiverCiphers)
            engine.setAudience(audience, of: link)
            return link.localIndex
        }
        let receiverPort = try XCTUnwrap(receiver.socket).port, senderPort = try XCTUnwrap(sender.socket).port
        let senderIndex = sender.sync { engine in
            let link = engine.addLink(session: 1, name: "receiver", ciphers: senderCiphers)
            engine.setAudience(audience, of: link)
            engine.learned(link, index: receiverIndex, port: receiverPort, address: toReceiver, now: Date())
            return link.localIndex
        }
        receiver.sync { $0.learned($0.theLink, index: senderIndex, port: senderPort, address: toSender, now: Date()) }
        var pair: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_SEQPACKET.rawValue), 0, &pair), 0)
        let client = FileDescriptor(rawValue: pair[0])
        opened.append(client)
        sender.start()
        receiver.start()
        XCTAssertNil(receiver.sync { $0.open(FileDescriptor(rawValue: pair[1]), app: .none, answer: { _ in }) })
        return Pair(sender: sender, receiver: receiver, client: client, peer: peer)
    }

    /// Sends `count` data datagrams of `size` bytes from the sender: how many the kernel took.
    @discardableResult
    private func send(_ count: Int, size: Int = 100, on pair: Pair) -> Int {
        let data = [UInt8](repeating: 0x5A, count: size)
        return pair.sender.sync { engine in
            (0..<count).reduce(0) { sent, _ in sent + (data.withUnsafeBytes { engine.sendData($0, app: .none, on: engine.theLink) } == nil ? 1 : 0) }
        }
    }

    /// Reads the client's records until none came for 0.5 s: their data.
    private func drain(_ client: FileDescriptor) -> [[UInt8]] {
        var records: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 2_048)
        while true {
            var watch = pollfd(fd: client.rawValue, events: Int16(POLLIN), revents: 0)
            guard poll(&watch, 1, 500) == 1 else { return records }
            let count = buffer.withUnsafeMutableBytes { recv(client.rawValue, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            guard count > 0 else { return records }
            records.append(Array(buffer[0..<count]))
        }
    }

    /// Waits up to 5 s for the receiver's link counts to say `condition`.
    private func waitFor(_ pair: Pair, _ condition: @Sendable (DatagramCounters) -> Bool) -> Bool {
        let deadline = Date().addingTimeInterval(5)
        while Date() < deadline {
            if pair.receiver.sync({ condition($0.theLink.counters) }) { return true }
            usleep(2_000)
        }
        return false
    }

    private struct NotUp: Error, CustomStringConvertible {
        var description: String { "the probes were not answered on loopback within 5 s" }
    }

    /// Waits up to 5 s until both sides' probes were answered (the test fails otherwise).
    private func waitUntilUp(_ pair: Pair) throws {
        let deadline = Date().addingTimeInterval(5)
        while pair.sender.sync({ $0.theLink.path.state }) != .up || pair.receiver.sync({ $0.theLink.path.state }) != .up {
            guard Date() < deadline else { throw NotUp() }
            usleep(2_000)
        }
    }

    func testDatagramsCrossInBatchesInOrderAndEachRecordSaysItsPeer() throws {
        let pair = try pair()
        // 100 datagrams: more than one call's batch each way, each carrying its number.
        let sent = pair.sender.sync { engine in
            (0..<100).reduce(0) { sent, number in
                let data: [UInt8] = [UInt8(number)] + [UInt8](repeating: 0x42, count: 99)
                return sent + (data.withUnsafeBytes { engine.sendData($0, app: .none, on: engine.theLink) } == nil ? 1 : 0)
            }
        }
        XCTAssertEqual(sent, 100)
        let records = drain(pair.client)
        XCTAssertEqual(records.count, 100, "on loopback, with an idle reader, none is lost")
        XCTAssertEqual(records.map { $0[DatagramRecord.receiveHeader] }, (0..<100).map { UInt8($0) }, "in the order sent")
        for record in records {
            let parsed = try XCTUnwrap(DatagramRecord.parseReceived(record))
            XCTAssertEqual(parsed.peer, pair.peer)
            XCTAssertEqual(parsed.lost, 0)
            XCTAssertEqual(parsed.data.count, 100)
        }
        XCTAssertEqual(pair.sender.sync { $0.theLink.counters.sent }, 100)
        XCTAssertEqual(pair.receiver.sync { $0.theLink.counters.received }, 100)
    }

    func testThePerPeerBoundDropsWhatIsOverItAsRate() throws {
        let pair = try pair(perPeer: 50)
        // The probes count against the second too: once they are answered, a new second starts.
        try waitUntilUp(pair)
        pair.receiver.sync { $0.tick(now: Date()) }
        XCTAssertEqual(send(80, on: pair), 80)
        // Within one second of the bound (no tick runs here): 50 taken, 30 over it.
        XCTAssertTrue(waitFor(pair) { $0.received + $0.dropped[.rate, default: 0] == 80 }, "every datagram is accounted for")
        let counters = pair.receiver.sync { $0.theLink.counters }
        XCTAssertEqual(counters.received, 50)
        XCTAssertEqual(counters.dropped[.rate], 30)
        XCTAssertEqual(drain(pair.client).count, 50)
        // A new second: the peer's share is whole again.
        pair.receiver.sync { $0.tick(now: Date()) }
        XCTAssertEqual(send(10, on: pair), 10)
        XCTAssertTrue(waitFor(pair) { $0.received == 60 })
    }

    func testAnEndedSessionsDatagramsAreJunkAndCostNoDecryption() throws {
        let pair = try pair()
        // Once up, no probe comes for 15 s: the junk counted below is the data alone.
        try waitUntilUp(pair)
        XCTAssertEqual(send(3, on: pair), 3)
        XCTAssertTrue(waitFor(pair) { $0.received == 3 })
        // The receiver's session ends; the sender still has the old key and index.
        pair.receiver.sync { $0.removeLink(session: 1) }
        let junkBefore = pair.receiver.sync { $0.status().junk }
        XCTAssertEqual(send(5, on: pair), 5)
        let deadline = Date().addingTimeInterval(5)
        while pair.receiver.sync({ $0.status().junk }) < junkBefore + 5, Date() < deadline { usleep(2_000) }
        let status = pair.receiver.sync { $0.status() }
        XCTAssertEqual(status.junk, junkBefore + 5, "an index no session has is junk, before any crypto")
        XCTAssertEqual(status.received, 3, "the ended link's counts are kept, and nothing more was taken")
        XCTAssertEqual(status.dropped[DatagramDrop.authFailed.rawValue, default: 0], 0, "no decryption was tried")
        XCTAssertEqual(drain(pair.client).count, 3)
    }

    func testTheKernelsDropsAreCountedWhenTheSocketOverflows() throws {
        // The receiver's queue is held: its socket's buffer fills, and the kernel drops the rest.
        let pair = try pair()
        let gate = DispatchSemaphore(value: 0)
        pair.receiver.queue.async { gate.wait() }
        var sent = 0
        for _ in 0..<40 where sent < 20_000 { sent += send(500, size: 1_200, on: pair) }
        XCTAssertGreaterThan(sent, 0)
        gate.signal()
        // The kernel tells its count with each datagram queued after a drop:
        // those the full buffer held predate it, so one more is sent.
        XCTAssertTrue(waitFor(pair) { $0.received > 0 })
        _ = drain(pair.client)
        XCTAssertEqual(send(1, on: pair), 1)
        let deadline = Date().addingTimeInterval(5)
        while pair.receiver.sync({ $0.status().kernelDropped }) == 0, Date() < deadline { usleep(2_000) }
        let status = pair.receiver.sync { $0.status() }
        XCTAssertGreaterThan(status.kernelDropped, 0, "\(sent) datagrams of 1,200 bytes are more than the socket holds")
        XCTAssertLessThan(status.kernelDropped, UInt64(sent), "what the buffer held is read")
    }

    func testAClientThatDoesNotReadLosesDatagramsAndIsToldHowMany() throws {
        let pair = try pair()
        // The client reads nothing until 10,000 came: its socket holds some
        // (peerd's end has a 1 MiB buffer), the rest are lost for it. (A
        // round at a time, so the UDP socket itself never overflows.)
        for round in 1...50 {
            XCTAssertEqual(send(200, on: pair), 200)
            XCTAssertTrue(waitFor(pair) { $0.received == UInt64(round * 200) })
        }
        let lost = pair.receiver.sync { $0.theLink.counters.dropped[.slowReceiver, default: 0] }
        XCTAssertGreaterThan(lost, 0, "a 1 MiB socket buffer holds fewer than 10,000 records")
        let held = drain(pair.client)
        XCTAssertEqual(UInt64(held.count) + lost, 10_000, "each datagram was either written or counted lost")
        // The next datagram's record says how many were lost before it.
        XCTAssertEqual(send(1, on: pair), 1)
        let next = drain(pair.client)
        XCTAssertEqual(next.count, 1)
        XCTAssertEqual(try XCTUnwrap(next.first.flatMap(DatagramRecord.parseReceived)).lost, UInt32(lost))
    }
}

private extension DatagramEngine {
    /// The one link of the tests' engines (session 1).
    var theLink: DatagramLink { link(ofSession: 1)! }
}
