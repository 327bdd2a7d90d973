import Foundation
import Glibc
@testable import PeerCore
@testable import PeerIO
import PeerKit
import XCTest

/// Answers `peers` with an empty list and everything else with `notFound`.
@MainActor
private final class PeersOnly: ControlRequestHandler {
    func clientWrote(_ client: ControlConnection) {}
    func clientClosed(_ client: ControlConnection) {}
    func subscriberDrained() {}

    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        switch method {
        case .subscribe: return .subscribed(SubscribeResult(seq: 0, replayed: 0, truncated: false), replay: [], then: nil)
        case .peers: return .result(PeersResult(peers: []))
        default: return .error(ControlError(.notFound, "stub"))
        }
    }
}

/// A raw, blocking Unix-socket client that writes what it is told.
private final class RawClient: @unchecked Sendable {
    let fd: Int32

    init(_ path: String) throws {
        fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard SocketAddress.withSockaddr(try SocketAddress.unix(path), { connect(fd, $0, $1) }) == 0 else {
            throw SystemError("connect", errno: errno, context: path)
        }
    }

    deinit { close(fd) }

    /// Writes all of `bytes`; false once the daemon has closed.
    @discardableResult
    func write(_ bytes: [UInt8]) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let n = bytes.withUnsafeBytes { Glibc.send(fd, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL)) }
            if n <= 0 { return false }
            offset += n
        }
        return true
    }

    /// Everything until the daemon closes (or 5 s pass).
    func readToEnd() -> String {
        var timeout = timeval(tv_sec: 5, tv_usec: 0)
        setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var data: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = read(fd, &chunk, chunk.count)
            if n <= 0 { break }
            data += chunk[0..<n]
        }
        return String(decoding: data, as: UTF8.self)
    }
}

/// How control clients are kept from exhausting the daemon: per-user and
/// shared caps, the bound on unfinished request bytes, the deadline for an
/// unfinished line, and a main loop that answers while clients stream.
@MainActor
final class ControlServerLimitsTests: XCTestCase {
    private var path = ""
    private let handler = PeersOnly()

    override func setUp() async throws {
        path = NSTemporaryDirectory() + "peerd-lim-\(UUID().uuidString.prefix(8)).sock"
    }

    private func server(maxLine: Int = ControlProtocol.maxRequestLineBytes, requestBytesLimit: Int? = nil) throws -> ControlServer {
        let server = try ControlServer(path: path, queueLimit: 1 << 20, maxLine: maxLine, logger: Logger(level: .error),
                                       requestBytesLimit: requestBytesLimit)
        return server
    }

    private func waitUntil(_ what: String, _ condition: @MainActor () -> Bool) async {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            if Date() > deadline { return XCTFail("timed out waiting until \(what)") }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    func testAClientAtTheCapReadsTheRefusalAndExitsThree() async throws {
        let server = try server()
        server.maxClients = 1   // the tests run as root: root's own pool
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let path = self.path
        let holder = try ControlClient(path: path)
        _ = try await Task.detached { try holder.call(.peers) }.value
        // The refused client writes its request before it reads: it must
        // still read the refusal, not die of SIGPIPE or report a reset.
        let error = await Task.detached { () -> ControlClientError? in
            do throws(ControlClientError) {
                _ = try ControlClient(path: path).call(.peers)
                return nil
            } catch { return error }
        }.value
        guard case .refused(_, let refusal)? = error else { return XCTFail("expected a refusal, got \(String(describing: error))") }
        XCTAssertEqual(refusal.code, .overloaded)
        XCTAssertTrue(refusal.message.contains("--max-clients"), refusal.message)
        XCTAssertEqual(error?.exitCode, 3)
    }

    func testAnUnfinishedLineIsClosedAtItsDeadline() async throws {
        let server = try server(maxLine: 1 << 20)
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let client = try RawClient(path)
        Task.detached { client.write(Array(#"{"v":1,"id":1,"method":"peers","params":{"context":""#.utf8) + [UInt8](repeating: 0x61, count: 100_000)) }
        await waitUntil("the server holds the unfinished line") { server.heldRequestBytes > 0 }
        server.tick(now: Date().addingTimeInterval(ControlProtocol.incompleteLineTimeout + 1))
        let answer = await Task.detached { client.readToEnd() }.value
        XCTAssertTrue(answer.contains("badRequest") && answer.contains("unfinished"), answer)
        await waitUntil("the bytes are released") { server.heldRequestBytes == 0 }
    }

    func testUnfinishedRequestBytesAreBoundedForAllClientsTogether() async throws {
        let server = try server(maxLine: 4 << 20, requestBytesLimit: 1 << 20)
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let first = try RawClient(path), second = try RawClient(path)
        Task.detached { first.write([UInt8](repeating: 0x61, count: 900_000)) }
        await waitUntil("the first line is held") { server.heldRequestBytes > 800_000 }
        let refused = await Task.detached { () -> String in
            second.write([UInt8](repeating: 0x61, count: 400_000))
            return second.readToEnd()
        }.value
        XCTAssertTrue(refused.contains("overloaded"), refused)
        XCTAssertLessThanOrEqual(server.heldRequestBytes, 1 << 20)
        // Small requests still go through.
        let path = self.path
        let peers = try await Task.detached { try ControlClient(path: path).call(.peers) }.value
        XCTAssertEqual(peers.peers, [])
    }

    func testTheLoopAnswersWhileClientsStreamLongLines() async throws {
        let server = try server(maxLine: 8 << 20)
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let path = self.path
        let streams = (0..<4).map { _ in
            Task.detached { () -> Bool in
                guard let client = try? RawClient(path) else { return false }
                let piece = [UInt8](repeating: 0x61, count: 16 * 1024)
                for _ in 0..<(6 << 20) / piece.count { guard client.write(piece) else { return false } }
                return true
            }
        }
        // While 24 MB of unfinished lines arrive, each answer comes fast.
        var slowest: Duration = .zero
        for _ in 0..<10 {
            let took = try await Task.detached { () -> Duration in
                let clock = ContinuousClock()
                let start = clock.now
                _ = try ControlClient(path: path).call(.peers)
                return start.duration(to: clock.now)
            }.value
            slowest = max(slowest, took)
        }
        for stream in streams { _ = await stream.value }
        XCTAssertLessThan(slowest, .milliseconds(500), "the main loop stalled for \(slowest)")
    }

    func testASubscriberBehindIsMeasuredAndDroppedOnlyWhenTold() async throws {
        let server = try server()
        server.start(handler: handler)
        defer { server.stop(time: Date()) }
        let client = try RawClient(path)
        var small: Int32 = 4096
        setsockopt(client.fd, SOL_SOCKET, SO_RCVBUF, &small, socklen_t(MemoryLayout<Int32>.size))
        Task.detached { client.write(Array(#"{"v":1,"id":1,"method":"subscribe"}"#.utf8) + [10]) }
        await waitUntil("the client subscribes") { server.subscriberCount == 1 }
        let peer = PeerSnapshot(id: UUID(), peerId: nil, name: String(repeating: "n", count: 2000), state: .notConnected, endpoints: [],
                                info: [:], lastSeen: Date(), lost: false)
        for seq in 1...200 { server.broadcast(ControlEvent(seq: UInt64(seq), type: .peerFound, time: Date(), peer: peer)) }
        XCTAssertGreaterThan(server.subscriberBacklog, 100_000, "the unread events are counted")
        XCTAssertEqual(server.subscriberCount, 1, "behind, but not dropped: the daemon holds the flow back instead")
        server.dropSubscribers(behindBy: 100_000, now: Date())
        let tail = await Task.detached { client.readToEnd() }.value
        XCTAssertTrue(tail.contains("overloaded") && tail.contains("while the flow was held back"), String(tail.suffix(300)))
    }
}
