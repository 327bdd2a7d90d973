import Foundation
import Glibc
@testable import PeerCore
@testable import PeerIO
import PeerKit
import XCTest

/// A handler with fixed answers, so the control layer is tested alone.
@MainActor
private final class StubHandler: ControlRequestHandler {
    var peers: [PeerSnapshot] = []
    /// Clients the server said were gone.
    var closed = 0
    /// Writes the server reported.
    var writes = 0

    func clientWrote(_ client: ControlConnection) { writes += 1 }
    func clientClosed(_ client: ControlConnection) { closed += 1 }
    func subscriberDrained() {}

    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        switch method {
        case .peers: return .result(PeersResult(peers: peers))
        case .subscribe: return .subscribed(SubscribeResult(seq: 0, replayed: 0, truncated: false), replay: [], then: nil)
        default: return .error(ControlError(.notFound, "stub"))
        }
    }
}

/// Asks for `status` (which the stub refuses) and returns the typed error.
private func statusError(_ path: String) -> ControlClientError? {
    do throws(ControlClientError) {
        _ = try ControlClient(path: path).call(.status)
        return nil
    } catch {
        return error
    }
}

/// The control server on a real Unix socket, with real clients.
@MainActor
final class ControlServerTests: XCTestCase {
    private var path = ""

    override func setUp() async throws {
        path = NSTemporaryDirectory() + "peerd-ctl-\(UUID().uuidString.prefix(8)).sock"
    }

    private func event(_ seq: UInt64) -> ControlEvent {
        let peer = PeerSnapshot(id: UUID(), peerId: String(repeating: "a", count: 32), name: "peer-\(seq)", state: .notConnected,
                                endpoints: [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.0.1", port: 1)],
                                info: ["padding": String(repeating: "x", count: 200)], lastSeen: Date(), lost: false)
        return ControlEvent(seq: seq, type: .peerFound, time: Date(), peer: peer)
    }

    func testRequestsErrorsAndEvents() async throws {
        let server = try ControlServer(path: path, queueLimit: 1 << 20, logger: Logger(level: .error))
        let handler = StubHandler()
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let path = self.path

        let peers = try await Task.detached { try ControlClient(path: path).call(.peers) }.value
        XCTAssertEqual(peers.peers, [])
        // The handler hears of the answer written and of the client gone
        // (it closed when the call returned).
        let deadline = Date().addingTimeInterval(5)
        while handler.closed == 0 && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        XCTAssertEqual(handler.closed, 1, "the handler heard the client close")
        XCTAssertGreaterThan(handler.writes, 0, "the handler heard its answer written")

        let error = await Task.detached { statusError(path) }.value
        guard case .daemon(let daemonError)? = error else { return XCTFail("expected a daemon error, got \(String(describing: error))") }
        XCTAssertEqual(daemonError.code, .notFound)
        XCTAssertEqual(error?.exitCode, 1)

        // Subscribe, then events arrive in order.
        let (ready, signal) = AsyncStream.makeStream(of: Void.self)
        let reader = Task.detached { () throws -> [UInt64] in
            let subscriber = try ControlClient(path: path)
            _ = try subscriber.call(.subscribe)
            signal.yield()
            return try (0..<3).map { _ in try subscriber.nextEvent().event.seq }
        }
        for await _ in ready { break }
        for seq in 1...3 { server.broadcast(event(UInt64(seq))) }
        let seqs = try await reader.value
        XCTAssertEqual(seqs, [1, 2, 3])
    }

    func testUnreachableDaemonIsExitCode3() {
        XCTAssertThrowsError(try ControlClient(path: path + ".absent")) { error in
            XCTAssertEqual((error as? ControlClientError)?.exitCode, 3)
            XCTAssertTrue("\(error)".contains("Is peerd running?"))
        }
    }

    func testASilentDaemonIsANoAnswerErrorNotAHang() async throws {
        // A socket that accepts (the kernel's backlog) but never answers, as
        // under socket activation when the service fails to start.
        let silent = try UnixSocketListener(path: path)
        defer { silent.close() }
        let client = try ControlClient(path: path)
        client.responseTimeout = .milliseconds(200)
        XCTAssertThrowsError(try client.call(.status)) { error in
            guard case .noAnswer(let where_, _) = error as? ControlClientError else { return XCTFail("\(error)") }
            XCTAssertEqual(where_, self.path)
            XCTAssertEqual((error as? ControlClientError)?.exitCode, 3)
            XCTAssertTrue("\(error)".contains("systemctl status peerd"))
        }
    }

    func testStuckSubscriberIsDroppedWithAFinalErrorEvent() async throws {
        let server = try ControlServer(path: path, queueLimit: 8192, logger: Logger(level: .error))
        let handler = StubHandler()
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let path = self.path

        // A raw client that subscribes, then reads nothing until told to.
        let (ready, subscribed) = AsyncStream.makeStream(of: Void.self)
        let go = DispatchSemaphore(value: 0)
        let reader = Task.detached { () throws -> [String] in
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var small: Int32 = 4096
            setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
            guard SocketAddress.withSockaddr(try SocketAddress.unix(path), { connect(fd, $0, $1) }) == 0 else { return [] }
            let request = Array(#"{"v":1,"id":1,"method":"subscribe"}"#.utf8) + [10]
            _ = request.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var reply = [UInt8](repeating: 0, count: 1)
            var got: [UInt8] = []
            while got.last != 10, read(fd, &reply, 1) == 1 { got += reply }
            subscribed.yield()
            go.wait()
            var data: [UInt8] = []
            var chunk = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = read(fd, &chunk, chunk.count)
                if n <= 0 { break }
                data += chunk[0..<n]
            }
            return String(decoding: data, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        for await _ in ready { break }

        // The daemon never blocks: 2,000 events go out while nobody reads.
        for seq in 1...2000 { server.broadcast(event(UInt64(seq))) }
        go.signal()
        let lines = try await reader.value
        XCTAssertFalse(lines.isEmpty)
        let last = try JSONLines.decode(ControlEnvelope.self, from: Array(lines.last!.utf8))
        XCTAssertEqual(last.event?.type, .error)
        XCTAssertEqual(last.event?.error?.code, .overloaded)
        XCTAssertLessThan(lines.count, 2000, "the backlog was dropped, not buffered")
        for line in lines.dropLast() {
            XCTAssertNoThrow(try JSONLines.decode(ControlEnvelope.self, from: Array(line.utf8)), "every line stays whole")
        }
        // The server still serves others.
        let peers = try await Task.detached { try ControlClient(path: path).call(.peers) }.value
        XCTAssertEqual(peers.peers.count, 0)
    }
}

/// A handler whose `queue` answer comes later (as a disk write's would).
@MainActor
private final class DeferringHandler: ControlRequestHandler {
    var calls: [String] = []
    var pending: (@MainActor (ControlReply) -> Void)?
    let deferred: AsyncStream<Void>.Continuation

    init(deferred: AsyncStream<Void>.Continuation) { self.deferred = deferred }

    func clientWrote(_ client: ControlConnection) {}
    func clientClosed(_ client: ControlConnection) {}
    func subscriberDrained() {}

    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        calls.append(method.rawValue)
        guard method == .queue else { return .result(PeersResult(peers: [])) }
        return .later { [self] answer in
            pending = answer
            deferred.yield()
        }
    }
}

@MainActor
final class ControlReplyLaterTests: XCTestCase {
    /// Two requests in one write, the first answered later: the second is
    /// not handled until the first is answered, and the answers keep the
    /// order of the requests.
    func testARequestBehindALaterAnswerWaitsForIt() async throws {
        let path = NSTemporaryDirectory() + "peerd-later-\(UUID().uuidString.prefix(8)).sock"
        let server = try ControlServer(path: path, queueLimit: 1 << 20, logger: Logger(level: .error))
        let (deferred, signal) = AsyncStream.makeStream(of: Void.self)
        let handler = DeferringHandler(deferred: signal)
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let client = Task.detached { () -> [String] in
            let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            defer { close(fd) }
            var address = sockaddr_un()
            address.sun_family = sa_family_t(AF_UNIX)
            withUnsafeMutableBytes(of: &address.sun_path) { raw in
                for (index, byte) in path.utf8.enumerated() { raw[index] = byte }
            }
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else { return ["connect failed"] }
            let requests = Array("{\"v\":1,\"id\":1,\"method\":\"queue\"}\n{\"v\":1,\"id\":2,\"method\":\"peers\"}\n".utf8)
            _ = requests.withUnsafeBytes { write(fd, $0.baseAddress, $0.count) }
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 4096)
            while received.filter({ $0 == UInt8(ascii: "\n") }).count < 2 {
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { break }
                received += buffer.prefix(count)
            }
            return String(decoding: received, as: UTF8.self).split(separator: "\n").map(String.init)
        }
        for await _ in deferred { break }
        // Let the server turn its loop: the second request is read, and must wait.
        for _ in 0..<20 { await Task.yield() }
        XCTAssertEqual(handler.calls, ["queue"], "the request behind a later answer is not handled yet")
        handler.calls.append("answered")
        handler.pending?(.result(QueueResult(queues: [])))
        let lines = await client.value
        XCTAssertEqual(handler.calls, ["queue", "answered", "peers"])
        XCTAssertEqual(lines.count, 2, "\(lines)")
        XCTAssertTrue(lines.first?.contains("\"id\":1") == true && lines.first?.contains("queues") == true, "\(lines)")
        XCTAssertTrue(lines.last?.contains("\"id\":2") == true && lines.last?.contains("peers") == true, "\(lines)")
    }
}
