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
        let path = directory + "/inbox2"
        for (bytes, words) in [(Array("PEERDI3\n".utf8) + [1, 2, 3], "another layout (its header says PEERDI3?)"),
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
        let size = try FileManager.default.attributesOfItem(atPath: directory + "/inbox2")[.size] as? Int
        XCTAssertEqual(size, InboxFileCodec.fixedHeaderSize)
        XCTAssertEqual(inbox.bytes, 0)
        XCTAssertEqual(try inbox.append([2], from: a, at: time).id, 4)
    }

    func testTakenRecordsAreCompactedAway() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger)
        for _ in 1...40 { _ = try inbox.append(Array(repeating: 3, count: 64 * 1024), from: a, at: time) }
        try inbox.remove(Set(inbox.entries.prefix(39).map(\.id)))
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: directory + "/inbox2")[.size] as? Int)
        XCTAssertLessThan(size, 2 * 64 * 1024, "one waiting message, so the file was rewritten")
        XCTAssertEqual(try inbox.data(of: inbox.entries[inbox.entries.startIndex]), Array(repeating: 3, count: 64 * 1024))
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger).entries.map(\.id), [40])
    }

    func testADamagedRecordCostsOnlyItselfAndTheFileIsRepaired() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        for n in 1...3 { _ = try inbox.append(Array(repeating: UInt8(n), count: 100), from: a, at: time) }
        let path = directory + "/inbox2"
        var bytes = try [UInt8](Data(contentsOf: URL(fileURLWithPath: path)))
        bytes[inbox.entries[inbox.entries.startIndex + 1].offset + 50] ^= 0xFF
        bytes += [0xA5, 0x5A, 0, 0]   // a record cut short by a crash
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let reopened = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        XCTAssertEqual(reopened.entries.map(\.id), [1, 3])
        XCTAssertEqual(try reopened.data(of: reopened.entries.last!), Array(repeating: 3, count: 100))
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger).entries.map(\.id), [1, 3])
    }

    /// The marks of exactly-once delivery outlive their records: a
    /// compaction or an emptied inbox keeps them in the header, and a
    /// restart reads them back (issue 42, point 6).
    func testMarksOutliveTheirRecords() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger)
        for seq in 1...3 { _ = try inbox.append([UInt8(seq)], from: a, at: time, tag: QueueTag(epoch: 11, seq: UInt64(seq))) }
        _ = try inbox.append([9], from: b, at: time)
        XCTAssertEqual(inbox.marks, [a: QueueTag(epoch: 11, seq: 3)], "untagged messages mark nothing")
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger).marks, [a: QueueTag(epoch: 11, seq: 3)])
        try inbox.remove(Set(inbox.entries.map(\.id)))
        // Nothing waits, but a mark is kept: the file is not cut to nothing.
        XCTAssertEqual(try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger).marks, [a: QueueTag(epoch: 11, seq: 3)])
        // A compaction drops the records and keeps the marks in the header.
        for n in 1...40 { _ = try inbox.append(Array(repeating: 3, count: 64 * 1024), from: b, at: time, tag: QueueTag(epoch: 4, seq: UInt64(n))) }
        try inbox.remove(Set(inbox.entries.prefix(40).map(\.id)))
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: directory + "/inbox2")[.size] as? Int)
        XCTAssertLessThan(size, 64 * 1024, "compacted")
        let reopened = try MessageInbox(stateDirectory: directory, limit: 64 << 20, logger: logger)
        XCTAssertEqual(reopened.marks, [a: QueueTag(epoch: 11, seq: 3), b: QueueTag(epoch: 4, seq: 40)])
        XCTAssertEqual(reopened.entries.count, 0)
        XCTAssertEqual(try reopened.append([1], from: a, at: time).id, 45, "ids go on past compacted ones")
    }

    /// An earlier release's `inbox` (version 1) is carried into `inbox2`
    /// after what that holds, with new ids, then removed.
    func testAnEarlierReleasesInboxIsCarriedOverAndRemoved() throws {
        let inbox = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        _ = try inbox.append(Array("new".utf8), from: a, at: time, tag: QueueTag(epoch: 3, seq: 1))
        let old = InboxFileCodec.header1 + InboxFileCodec.encodeVersion1(id: 1, received: time, peerID: b, data: Array("old 1".utf8))
            + InboxFileCodec.encodeVersion1(id: 2, received: time, peerID: b, data: Array("old 2".utf8))
        try Data(old).write(to: URL(fileURLWithPath: directory + "/inbox"))
        let carried = try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger)
        XCTAssertEqual(try carried.entries.map { String(decoding: try carried.data(of: $0), as: UTF8.self) }, ["new", "old 1", "old 2"])
        XCTAssertEqual(carried.entries.map(\.id), [1, 2, 3])
        XCTAssertEqual(carried.marks, [a: QueueTag(epoch: 3, seq: 1)])
        XCTAssertFalse(FileManager.default.fileExists(atPath: directory + "/inbox"), "removed once carried")
        // A version 1 header under the new name is another layout: refused.
        try Data(Array("PEERDI1\n".utf8)).write(to: URL(fileURLWithPath: directory + "/inbox2"))
        XCTAssertThrowsError(try MessageInbox(stateDirectory: directory, limit: 1 << 20, logger: logger))
    }
}
