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
        XCTAssertEqual(try reopened.pending(peer).map { String(decoding: $0, as: UTF8.self) }, ["m1", "m2", "m3", "m4", "m5"])
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
        let path = directory + "/queue/\(peer).queue2"
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0, 0, 0, 9, 1, 2]))
        handle.closeFile()
        let reopened = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(try reopened.pending(peer), [Array("whole".utf8)])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 8 + 10 + 5, "the partial record was trimmed")
    }

    func testCodecStopsAtAPartialRecord() {
        let bytes = QueueFileCodec.encodeFile([[1, 2], []]) + [0xA5, 0x5A, 0, 0, 0, 5, 9]
        let decoded = QueueFileCodec.decode(bytes)
        XCTAssertEqual(decoded.messages, [[1, 2], []])
        XCTAssertEqual(decoded.wholeBytes, 8 + 12 + 10)
        XCTAssertTrue(decoded.needsRewrite)
    }

    func testABadRecordCostsOnlyItself() {
        var bytes = QueueFileCodec.encodeFile([Array("first".utf8), Array("second".utf8), Array("third".utf8)])
        bytes[8 + 15 + 12] ^= 0xFF   // a byte of "second"
        let decoded = QueueFileCodec.decode(bytes)
        XCTAssertEqual(decoded.messages, [Array("first".utf8), Array("third".utf8)])
        XCTAssertEqual(decoded.skippedBytes, 16)
        // A record whose length swallows what follows is skipped the same way.
        var swallowing = QueueFileCodec.encodeFile([Array("a".utf8)]) + [0xA5, 0x5A, 0, 0, 0x0B, 0xB8, 0, 0, 0, 0] + Array("part".utf8)
        swallowing += QueueFileCodec.encode(Array("after".utf8))
        XCTAssertEqual(QueueFileCodec.decode(swallowing).messages, [Array("a".utf8), Array("after".utf8)])
    }

    func testA010QueueIsCarriedIntoThisReleasesFileAndRemovedThere() throws {
        try FileManager.default.createDirectory(atPath: directory + "/queue", withIntermediateDirectories: true)
        let old = directory + "/queue/\(peer).queue"
        try Data([0, 0, 0, 2, 7, 8, 0, 0, 0, 1, 9]).write(to: URL(fileURLWithPath: old))
        let store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(try store.pending(peer), [[7, 8], [9]])
        let current = directory + "/queue/\(peer).queue2"
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: current))), QueueFileCodec.encodeFile([[7, 8], [9]]))
        XCTAssertFalse(FileManager.default.fileExists(atPath: old), "0.1.0's file goes once its messages are in this release's")
    }

    func testAfterADowngradeBothFilesAreKeptInOrder() throws {
        // 0.2.0 wrote .queue2; a downgraded 0.1.0 then queued more in .queue.
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertTrue(try store.append(Array("before".utf8), for: peer))
        try Data([0, 0, 0, 6] + Array("during".utf8)).write(to: URL(fileURLWithPath: directory + "/queue/\(peer).queue"))
        let upgraded = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(try upgraded.pending(peer).map { String(decoding: $0, as: UTF8.self) }, ["before", "during"])
    }

    func testAQueueFileOfAnotherLayoutIsRefusedAndLeftAsItIs() throws {
        try FileManager.default.createDirectory(atPath: directory + "/queue", withIntermediateDirectories: true)
        let path = directory + "/queue/\(peer).queue2"
        for (bytes, words) in [(Array("PEERDQ3\n".utf8) + [1, 2, 3], "another layout (its header says PEERDQ3?)"),
                               ([0xff, 0, 1, 2, 3, 4, 5, 6, 7], "a damaged header")] {
            try Data(bytes).write(to: URL(fileURLWithPath: path))
            XCTAssertThrowsError(try MessageQueueStore(stateDirectory: directory, logger: logger)) { error in
                guard case .unreadable(let named, let found)? = error as? MessageQueueStoreError else { return XCTFail("\(error)") }
                XCTAssertEqual(named, path, "the refusal names the file")
                XCTAssertTrue(found.contains(words), found)
                XCTAssertTrue("\(error)".contains("Nothing was changed"))
            }
            XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: path))), bytes, "the file is left as it was")
        }
    }

    func testAFailedAppendLeavesTheFileAsItWas() throws {
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertTrue(try store.append(Array("kept".utf8), for: peer))
        let path = directory + "/queue/\(peer).queue2"
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        // A file-size limit makes the next write stop part-way, as a full disk does.
        signal(SIGXFSZ, SIG_IGN)
        var saved = rlimit()
        getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        var tight = rlimit(rlim_cur: rlim_t(before.count + 6), rlim_max: saved.rlim_max)
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &tight)
        XCTAssertThrowsError(try store.append(Array(repeating: 0x41, count: 3000), for: peer))
        setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)), before, "no part of the failed message stays")
        XCTAssertEqual(try store.pending(peer), [Array("kept".utf8)])
        XCTAssertTrue(try store.append(Array("later".utf8), for: peer))
        let reopened = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(try reopened.pending(peer), [Array("kept".utf8), Array("later".utf8)], "the failed message is never delivered; the later one is kept")
    }

    /// An acknowledgement marks records in place: the file is not
    /// rewritten (same inode, same size), delivered messages never come back
    /// after a restart, and the file is compacted once delivered records
    /// outweigh the waiting ones by more than 1 MiB.
    func testAcknowledgedMessagesAreMarkedInPlaceNotRewritten() throws {
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        for n in 1...5 { XCTAssertTrue(try store.append(Array("m\(n)".utf8), for: peer)) }
        let path = directory + "/queue/\(peer).queue2"
        let before = try FileManager.default.attributesOfItem(atPath: path)
        try store.removeFirst(2, for: peer)
        let after = try FileManager.default.attributesOfItem(atPath: path)
        XCTAssertEqual(after[.systemFileNumber] as? Int, before[.systemFileNumber] as? Int, "not rewritten")
        XCTAssertEqual(after[.size] as? Int, before[.size] as? Int)
        var reopened = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(try reopened.pending(peer).map { String(decoding: $0, as: UTF8.self) }, ["m3", "m4", "m5"])
        try reopened.removeFirst(1, for: peer)
        XCTAssertTrue(try reopened.append(Array("m6".utf8), for: peer))
        XCTAssertEqual(try MessageQueueStore(stateDirectory: directory, logger: logger).pending(peer).map { String(decoding: $0, as: UTF8.self) },
                       ["m4", "m5", "m6"])
        // Compaction: 2 MiB delivered, a little waiting.
        var big = try MessageQueueStore(stateDirectory: directory, logger: logger)
        for _ in 1...5 { XCTAssertTrue(try big.append(Array(repeating: 7, count: 512 * 1024), for: peer)) }
        try big.removeFirst(3, for: peer)
        try big.removeFirst(4, for: peer)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: path)[.size] as? Int)
        XCTAssertLessThan(size, 1 << 20, "compacted")
        XCTAssertEqual(try MessageQueueStore(stateDirectory: directory, logger: logger).pending(peer).count, 1)
    }

    /// Only the index is in memory: messages are read back from the file,
    /// in bounded batches, past the ones already in flight.
    func testReadsComeFromTheFileInBoundedBatches() throws {
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger)
        for n in 1...6 { XCTAssertTrue(try store.append(Array(repeating: UInt8(n), count: 100), for: peer)) }
        XCTAssertEqual(store.count(peer), 6)
        XCTAssertEqual(store.bytes(peer), 600)
        XCTAssertEqual(try store.read(peer, skip: 0, maxBytes: 250).map { $0[0] }, [1, 2], "as many as fit")
        XCTAssertEqual(try store.read(peer, skip: 2, maxBytes: 1000, maxCount: 3).map { $0[0] }, [3, 4, 5], "at most maxCount")
        XCTAssertEqual(try store.read(peer, skip: 0, maxBytes: 99), [], "none when the first does not fit")
        XCTAssertEqual(try store.read(peer, skip: 6, maxBytes: 1000), [], "nothing past the end")
        try store.removeFirst(2, for: peer)
        XCTAssertEqual(try store.read(peer, skip: 1, maxBytes: 1000).map { $0[0] }, [4, 5, 6], "after an acknowledgement")
        // The bytes on disk are what is read: change one, and the read shows it.
        let path = directory + "/queue/\(peer).queue2"
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        handle.seek(toFileOffset: UInt64(8 + 5 * 110 + 10))
        handle.write(Data([0xEE]))
        handle.closeFile()
        XCTAssertEqual(try store.read(peer, skip: 3, maxBytes: 1000).first?.first, 0xEE)
    }
}
