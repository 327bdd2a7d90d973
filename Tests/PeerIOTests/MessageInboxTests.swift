import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO

final class MessageInboxTests: XCTestCase {
    private var directory = ""
    private let logger = Logger(level: .error)
    private let a = String(repeating: "ab", count: 16)
    private let b = String(repeating: "cd", count: 16)
    private let time = Date(timeIntervalSince1970: 1_796_000_000)

    override func setUp() { directory = NSTemporaryDirectory() + "peerd-inbox-\(UUID().uuidString.prefix(8))" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    func testAnInboxOfAnotherLayoutIsRefusedAndLeftAsItIs() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/inbox"
        for (bytes, words) in [(Array("PEERDI2\n".utf8) + [1, 2, 3], "another layout (its header says PEERDI2?)"),
                               (Array("junkjunkjunk".utf8), "a damaged header")] {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertEqual(MessageInbox.unreadableHeader(stateDirectory: directory)?.found.contains(words), true, "\(words)")
            XCTAssertThrowsError(try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger))
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), bytes, "the file is left as it was")
        }
        try Data(Array("PEER".utf8)).write(to: URL(fileURLWithPath: path))
        XCTAssertNil(MessageInbox.unreadableHeader(stateDirectory: directory), "a header cut short holds nothing: not refused")
    }

    func testMessagesSurviveARestartAndTakenOnesNeverComeBack() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        for n in 1...5 { _ = try inbox.append(Array("m\(n)".utf8), from: n % 2 == 0 ? b : a, at: time) }
        try inbox.remove([1, 2])
        let reopened = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        XCTAssertEqual(reopened.entries.map(\.id), [3, 4, 5])
        XCTAssertEqual(try reopened.entries.map { String(decoding: try reopened.data(of: $0), as: UTF8.self) }, ["m3", "m4", "m5"])
        XCTAssertEqual(reopened.index.bySender[a]?.count, 2)
        XCTAssertEqual(reopened.index.bySender[b]?.count, 1)
        // Ids keep increasing across restarts, past taken ones.
        XCTAssertEqual(try reopened.append([1], from: a, at: time).id, 6)
        try reopened.remove([4])
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger).entries.map(\.id), [3, 5, 6])
    }

    func testTheFileEmptiesWhenNothingWaits() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        for _ in 1...3 { _ = try inbox.append(Array(repeating: 1, count: 1000), from: a, at: time) }
        try inbox.remove(Set(inbox.entries.map(\.id)))
        let size = try FileManager.default.attributesOfItem(atPath: directory + "/inbox")[.size] as? Int
        XCTAssertEqual(size, InboxFileCodec.header.count)
        XCTAssertEqual(inbox.bytes, 0)
        XCTAssertEqual(try inbox.append([2], from: a, at: time).id, 4)
    }

    func testTakenRecordsAreCompactedAway() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger)
        for _ in 1...40 { _ = try inbox.append(Array(repeating: 3, count: 64 * 1024), from: a, at: time) }
        try inbox.remove(Set(inbox.entries.prefix(39).map(\.id)))
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: directory + "/inbox")[.size] as? Int)
        XCTAssertLessThan(size, 2 * 64 * 1024, "one waiting message, so the file was rewritten")
        XCTAssertEqual(try inbox.data(of: inbox.entries[inbox.entries.startIndex]), Array(repeating: 3, count: 64 * 1024))
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger).entries.map(\.id), [40])
    }

    func testADamagedRecordCostsOnlyItselfAndTheFileIsRepaired() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        for n in 1...3 { _ = try inbox.append(Array(repeating: UInt8(n), count: 100), from: a, at: time) }
        let path = directory + "/inbox"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[inbox.entries[inbox.entries.startIndex + 1].offset + 50] ^= 0xFF
        bytes += [0xA5, 0x5A, 0, 0]   // a record cut short by a crash
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reopened = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        XCTAssertEqual(reopened.entries.map(\.id), [1, 3])
        XCTAssertEqual(try reopened.data(of: reopened.entries.last!), Array(repeating: 3, count: 100))
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger).entries.map(\.id), [1, 3])
    }
}
