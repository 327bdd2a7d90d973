import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO

final class MessageQueueStoreTests: XCTestCase {
    private var directory = ""
    private let logger = Logger(level: .error)
    private let peer = String(repeating: "ab", count: 16)

    override func setUp() { directory = NSTemporaryDirectory() + "peerd-queue-\(UUID().uuidString.prefix(8))" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testMessagesSurviveARestartInOrder() throws {
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        for n in 1...5 { XCTAssertTrue(try store.append(Array("m\(n)".utf8), for: peer)) }
        let reopened = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(reopened.pending(peer).map { String(decoding: $0, as: UTF8.self) }, ["m1", "m2", "m3", "m4", "m5"])
        var draining = reopened
        try draining.removeFirst(2, for: peer)
        XCTAssertEqual(try MessageQueueStore(stateDirectory: directory, logger: logger).pending(peer).count, 3)
        try draining.removeFirst(3, for: peer)
        XCTAssertEqual(try MessageQueueStore(stateDirectory: directory, logger: logger).peerIDs, [])
    }

    func testLimitPerPeerRefusesWithoutStoring() throws {
        var store = try MessageQueueStore(stateDirectory: directory, limitPerPeer: 10, logger: logger)
        XCTAssertTrue(try store.append(Array(repeating: 1, count: 8), for: peer))
        XCTAssertFalse(try store.append(Array(repeating: 1, count: 3), for: peer))
        XCTAssertEqual(store.bytes(peer), 8)
        XCTAssertEqual(try MessageQueueStore(stateDirectory: directory, logger: logger).pending(peer).count, 1)
    }

    func testARecordCutShortByACrashIsTrimmed() throws {
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        _ = try store.append(Array("whole".utf8), for: peer)
        let path = directory + "/queue/\(peer).queue"
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0, 0, 0, 9, 1, 2]))
        handle.closeFile()
        let reopened = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(reopened.pending(peer), [Array("whole".utf8)])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 9, "the partial record was trimmed")
    }

    func testCodecStopsAtAPartialRecord() {
        let bytes = QueueFileCodec.encode([1, 2]) + QueueFileCodec.encode([]) + [0, 0, 0, 5, 9]
        let decoded = QueueFileCodec.decode(bytes)
        XCTAssertEqual(decoded.messages, [[1, 2], []])
        XCTAssertEqual(decoded.wholeBytes, 10)
    }
}
