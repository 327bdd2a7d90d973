import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// A session that takes a few messages, then says its queue is full.
@MainActor
private final class FakeMessageSession: MessageSession {
    let remotePeerID: String?
    var isConnected = true
    let sendLimit = 1 << 20
    let queuedBytes = 0
    /// How many more messages it takes.
    var room: Int
    private(set) var sent: [String] = []
    /// The tag each sent message went with.
    private(set) var tags: [QueueTag?] = []

    init(peerID: String, room: Int) {
        remotePeerID = peerID
        self.room = room
    }

    func appRefusal(_ app: AppName) -> AppSendRefusal? { nil }

    func send(_ data: [UInt8], app: AppName, tag: QueueTag?) -> UInt64? {
        guard room > 0 else { return nil }
        room -= 1
        sent.append(String(decoding: data, as: UTF8.self))
        tags.append(tag)
        return UInt64(sent.count)
    }
}

/// Queued delivery driven through fake sessions (issue 21, point 8): a
/// message leaves the disk only once the peer acknowledged it, and what a
/// session did not get acknowledged goes again on the next one.
@MainActor
final class QueuedDeliveryTests: XCTestCase {
    private var directory = ""
    private let peerID = String(repeating: "ab", count: 16)
    private let peer = UUID()

    override func setUp() async throws { directory = NSTemporaryDirectory() + "peerd-queued-\(UUID().uuidString.prefix(8))" }
    override func tearDown() async throws { try? FileManager.default.removeItem(atPath: directory) }

    private func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }

    private func stored(_ delivery: QueuedDelivery) async throws -> Int {
        var counts: [QueueInfo]?
        delivery.list(record: { _ in nil }) { counts = $0 }
        try await eventually("the queue is counted") { counts != nil }
        return counts?.first?.messages ?? 0
    }

    func testMessagesLeaveTheDiskOnlyWhenAcknowledgedAndUnacknowledgedOnesGoAgain() async throws {
        let delivery = try QueuedDelivery(stateDirectory: directory, logger: Logger(level: .error))
        var written = 0
        for n in 1...3 {
            delivery.enqueue(Array("m\(n)".utf8), for: peerID, name: "alpha") { if case .success = $0 { written += 1 } }
        }
        try await eventually("all three are stored") { written == 3 }

        let first = FakeMessageSession(peerID: peerID, room: 2)
        delivery.drain(to: first, peer: peer, name: "alpha")
        try await eventually("the session takes what it has room for") { first.sent.count == 2 }
        XCTAssertEqual(first.sent, ["m1", "m2"], "oldest first, as far as the session takes them")
        delivery.acknowledged(1, peer: peer, peerID: peerID)
        // The worker is one queue: the count comes after the removal.
        let afterOne = try await stored(delivery)
        XCTAssertEqual(afterOne, 2, "the acknowledged one left the disk, the other stays")

        // The session ends with m2 sent and not acknowledged: it goes again.
        delivery.sessionEnded(peer)
        let second = FakeMessageSession(peerID: peerID, room: 10)
        delivery.drain(to: second, peer: peer, name: "alpha")
        try await eventually("the next session gets the rest") { second.sent.count == 2 }
        XCTAssertEqual(second.sent, ["m2", "m3"], "the unacknowledged message is sent again, in order")
        XCTAssertEqual(second.tags.map { $0?.seq }, [2, 3], "with the tag it had, so the peer keeps it once")
        XCTAssertEqual(second.tags[0], first.tags[1])
        delivery.acknowledged(2, peer: peer, peerID: peerID)
        let afterAll = try await stored(delivery)
        XCTAssertEqual(afterAll, 0, "every message acknowledged: the queue is empty")
    }

    func testASessionThatCarriesNoDataIsGivenNothing() async throws {
        let delivery = try QueuedDelivery(stateDirectory: directory, logger: Logger(level: .error))
        var written = false
        delivery.enqueue(Array("m".utf8), for: peerID, name: "alpha") { if case .success = $0 { written = true } }
        try await eventually("it is stored") { written }
        let session = FakeMessageSession(peerID: peerID, room: 10)
        session.isConnected = false
        delivery.drain(to: session, peer: peer, name: "alpha")
        let stillThere = try await stored(delivery)
        XCTAssertEqual(stillThere, 1)
        XCTAssertEqual(session.sent, [], "a session not connected is given nothing")
    }
}
