import Foundation
import Glibc
@testable import PeerKit
import PeerProtocol
import PeerSystem
import XCTest

/// PeerKit against a fake daemon: a typed call and its answer, the
/// daemon's errors as ``PeerError``, events resumed across a restart with
/// the gap reported, and a consumer that stops reading holding the daemon
/// back instead of growing the library.
final class PeerClientTests: XCTestCase {
    func testACallIsOneRequestLineAndItsResultComesBackTyped() async throws {
        let daemon = try FakeDaemon { _, connection in
            while let request = connection.request() {
                XCTAssertEqual(request.method, "peers")
                XCTAssertEqual(request.params?.app, "chat")
                connection.answer(request, PeersResult(peers: [PeerSnapshot(id: UUID(), peerId: nil, name: "bravo", state: .connected,
                                                                             endpoints: [], info: [:], lastSeen: Date(), lost: false)]))
            }
        }
        defer { daemon.stop() }
        let client = PeerClient.adopting(try ControlClient(path: daemon.path))
        let peers = try await client.peers(app: "chat")
        XCTAssertEqual(peers.map(\.name), ["bravo"])
        XCTAssertEqual(peers.first?.state, .connected)
    }

    func testTheDaemonsErrorsArrivePeerErrorsWithTheirFieldAndRelease() async throws {
        let daemon = try FakeDaemon { _, connection in
            var answered = 0
            while let request = connection.request() {
                answered += 1
                if answered == 1 {
                    connection.fail(request, ControlError(.invalidParams, "params.timeout must be a number, not \"x\"", field: "timeout"))
                } else {
                    connection.fail(request, ControlError(.unsupported, "'bravo' runs peerd 0.1.0, which cannot receive files", feature: "files", release: "0.1.0"))
                }
            }
        }
        defer { daemon.stop() }
        let client = PeerClient.adopting(try ControlClient(path: daemon.path))
        let peer = UUID()
        do {
            try await client.invite(peer, timeout: 1)
            XCTFail("the daemon refused it")
        } catch {
            XCTAssertEqual(error, .daemon(.invalidParams, "params.timeout must be a number, not \"x\"", field: "timeout"))
        }
        do {
            try await client.send([1], to: peer)
            XCTFail("the daemon refused it")
        } catch {
            XCTAssertEqual(error, .unsupported(feature: "files", release: "0.1.0", "'bravo' runs peerd 0.1.0, which cannot receive files"))
        }
    }

    /// The daemon restarts: the request that meets the broken connection
    /// fails, the next connects again and registers the app first.
    func testAfterARestartTheNextRequestReconnectsAndRegistersTheAppAgain() async throws {
        let seen = Seen()
        let daemon = try FakeDaemon { number, connection in
            while let request = connection.request() {
                seen.add("\(number):\(request.method)")
                switch request.method {
                case "register":
                    connection.answer(request, AppRow(name: "chat", uid: 0, clients: 1, declared: false, info: [:], subtype: "_chat._sub._peerd._tcp"))
                default:
                    connection.answer(request, PeersResult(peers: []))
                    if number == 1 { return connection.close() }   // the daemon goes
                }
            }
        }
        defer { daemon.stop() }
        let client = PeerClient.adopting(try ControlClient(path: daemon.path))
        try await client.register(app: "chat")
        _ = try await client.peers(app: "chat")
        do {
            _ = try await client.peers(app: "chat")
            XCTFail("the connection was gone")
        } catch {
            guard case .transport = error else { return XCTFail("\(error)") }
        }
        _ = try await client.peers(app: "chat")
        XCTAssertEqual(seen.all, ["1:register", "1:peers", "2:register", "2:peers"])
    }

    func testNoDaemonIsUnreachableWithTheErrno() async {
        do {
            _ = try await PeerClient.connect(socket: "/nonexistent/peerd.sock")
            XCTFail("nothing listens there")
        } catch {
            guard case .unreachable(let path, let code, _) = error else { return XCTFail("\(error)") }
            XCTAssertEqual(path, "/nonexistent/peerd.sock")
            XCTAssertEqual(code, ENOENT)
        }
    }

    /// The daemon restarts between events: the sequence reconnects,
    /// subscribes with `since` the last event, sees another run, reports
    /// the gap, and reads the new run from its start.
    func testEventsResumeAfterARestartAndTheGapIsReported() async throws {
        let daemon = try FakeDaemon { number, connection in
            guard let subscribe = connection.request() else { return }
            switch number {
            case 1:
                XCTAssertNil(subscribe.params?.since, "the first subscription replays nothing")
                connection.answer(subscribe, SubscribeResult(seq: 3, replayed: 0, truncated: false, run: "old"))
                connection.event(4)
                connection.event(5)
                connection.close()   // the daemon goes
            case 2:
                XCTAssertEqual(subscribe.params?.since, 5, "resubscribed after the last event seen")
                connection.answer(subscribe, SubscribeResult(seq: 2, replayed: 0, truncated: false, run: "new"))
            default:
                XCTAssertEqual(subscribe.params?.since, 0, "the new run from its start")
                connection.answer(subscribe, SubscribeResult(seq: 2, replayed: 2, truncated: false, run: "new"))
                connection.event(1)
                connection.event(2)
                while connection.request() != nil {}
            }
        }
        defer { daemon.stop() }
        let events = PeerEvents(path: daemon.path, app: nil, since: nil, take: false, reconnectFor: .seconds(10), adopted: nil)
        var got: [PeerEvent] = []
        for try await event in events {
            got.append(event)
            if got.count == 5 { break }
        }
        XCTAssertEqual(got.map(label), ["4", "5", "gap daemonRestarted after 5", "1", "2"])
    }

    /// `messages(app:)` registers the app on its own connection, takes
    /// (`take: true`), and hands over each message's bytes, skipping other events.
    func testMessagesRegisterTakeAndDecodeTheBytes() async throws {
        let from = UUID()
        let daemon = try FakeDaemon { _, connection in
            guard let register = connection.request() else { return }
            XCTAssertEqual(register.method, "register")
            XCTAssertEqual(register.params?.app, "chat")
            connection.answer(register, AppRow(name: "chat", uid: 0, clients: 1, declared: false, info: [:], subtype: "_chat._sub._peerd._tcp"))
            guard let subscribe = connection.request() else { return }
            XCTAssertEqual(subscribe.params?.take, true)
            XCTAssertEqual(subscribe.params?.app, "chat")
            connection.answer(subscribe, SubscribeResult(seq: 0, replayed: 0, truncated: false, run: "r"))
            connection.event(1, .peerUpdated)
            var message = ControlEvent(seq: 2, type: .message, time: Date(timeIntervalSince1970: 1))
            message.message = MessageInfo(from: from, peerId: "ab", data: Data([0, 1, 255]).base64EncodedString(), size: 3, app: "chat")
            connection.write(try! JSONLines.encode(EventLine(message)))
            while connection.request() != nil {}
        }
        defer { daemon.stop() }
        let messages = PeerMessages(events: PeerEvents(path: daemon.path, app: "chat", since: nil, take: true, reconnectFor: .seconds(5), adopted: nil))
        var iterator = messages.makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first?.bytes, [0, 1, 255])
        XCTAssertEqual(first?.from, from)
        XCTAssertEqual(first?.app, "chat")
    }

    func testATruncatedReplayIsAGap() {
        let resume = EventResume(last: 10, run: "r")
        XCTAssertEqual(resume.verdict(SubscribeResult(seq: 2000, replayed: 1024, truncated: true, run: "r")),
                       .gapThenReadOn(EventGap(reason: .truncated, after: 10)))
        XCTAssertEqual(resume.verdict(SubscribeResult(seq: 20, replayed: 10, truncated: false, run: "r")), .readOn)
        XCTAssertEqual(resume.verdict(SubscribeResult(seq: 20, replayed: 10, truncated: false, run: "other")),
                       .gapThenResubscribe(EventGap(reason: .daemonRestarted, after: 10)), "another run, whatever its numbers")
        XCTAssertEqual(EventResume(last: 10, run: nil).verdict(SubscribeResult(seq: 3, replayed: 0, truncated: false)),
                       .gapThenResubscribe(EventGap(reason: .daemonRestarted, after: 10)), "a daemon without run ids: numbers went back")
        XCTAssertEqual(EventResume(last: nil, run: nil).verdict(SubscribeResult(seq: 3, replayed: 0, truncated: true)), .readOn,
                       "nothing seen yet: nothing lost")
    }

    /// A consumer that takes one event and stops: the library reads no
    /// more, so the daemon's writes back up in the socket (it would then
    /// hold back, as docs/control-protocol.md says) instead of the
    /// library's memory growing.
    func testAConsumerThatStopsReadingHoldsTheDaemonBack() async throws {
        let blocked = Blocked()
        let daemon = try FakeDaemon { _, connection in
            guard let subscribe = connection.request() else { return }
            connection.answer(subscribe, SubscribeResult(seq: 0, replayed: 0, truncated: false, run: "r"))
            _ = fcntl(connection.fd, F_SETFL, fcntl(connection.fd, F_GETFL) | O_NONBLOCK)
            var seq: UInt64 = 1
            var written = 0
            var line = connection.eventLine(seq)
            var offset = 0
            let start = Date()
            while Date().timeIntervalSince(start) < 5 {
                let count = line[offset...].withUnsafeBytes { Glibc.write(connection.fd, $0.baseAddress, $0.count) }
                if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) {
                    // Held back: the client reads no more. Wait a little to be sure it stays so.
                    usleep(300_000)
                    let again = line[offset...].withUnsafeBytes { Glibc.write(connection.fd, $0.baseAddress, $0.count) }
                    if again < 0 { return blocked.set(written) }
                    written += again
                    offset += again
                } else if count > 0 {
                    written += count
                    offset += count
                }
                if offset == line.count {
                    seq += 1
                    line = connection.eventLine(seq)
                    offset = 0
                }
            }
        }
        defer { daemon.stop() }
        var iterator = PeerEvents(path: daemon.path, app: nil, since: nil, take: false, reconnectFor: .seconds(5), adopted: nil).makeAsyncIterator()
        let first = try await iterator.next()
        XCTAssertEqual(first.map(label), "1")
        let deadline = Date().addingTimeInterval(10)
        while blocked.bytes == nil, Date() < deadline { try await Task.sleep(nanoseconds: 10_000_000) }
        let held = try XCTUnwrap(blocked.bytes, "the daemon's writes never backed up: the library kept reading")
        XCTAssertLessThan(held, 8 << 20, "what was written before it backed up is the socket's buffers and one read, not everything")
        let second = try await iterator.next()
        XCTAssertEqual(second.map(label), "2", "pulling again reads on, in order")
    }

    private func label(_ event: PeerEvent) -> String {
        switch event {
        case .event(let e): "\(e.seq)"
        case .gap(let gap): "gap \(gap.reason.rawValue) after \(gap.after)"
        }
    }
}

/// Where the fake daemon's writes backed up, once they did.
private final class Blocked: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value: Int?
    func set(_ bytes: Int) { lock.withLock { value = bytes } }
    var bytes: Int? { lock.withLock { value } }
}

/// What the fake daemon was asked, in order.
private final class Seen: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var items: [String] = []
    func add(_ item: String) { lock.withLock { items.append(item) } }
    var all: [String] { lock.withLock { items } }
}
