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
        let path = directory + "/queue/\(peer).queue3"
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: path))
        handle.seekToEndOfFile()
        handle.write(Data([0, 0, 0, 9, 1, 2]))
        handle.closeFile()
        let reopened = try MessageQueueStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(try reopened.pending(peer), [Array("whole".utf8)])
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: path)).count, 16 + 18 + 5, "the partial record was trimmed")
    }

    func testCodecStopsAtAPartialRecord() {
        let bytes = file([[1, 2], []]) + [0xA5, 0x5A, 0, 0, 0, 5, 9]
        let decoded = QueueFileCodec.decode(bytes)
        XCTAssertEqual(decoded.messages, [[1, 2], []])
        XCTAssertEqual(decoded.wholeBytes, 16 + 20 + 18)
        XCTAssertTrue(decoded.needsRewrite)
    }

    func testABadRecordCostsOnlyItself() {
        var bytes = file([Array("first".utf8), Array("second".utf8), Array("third".utf8)])
        bytes[16 + 23 + 20] ^= 0xFF   // a byte of "second"
        let decoded = QueueFileCodec.decode(bytes)
        XCTAssertEqual(decoded.messages, [Array("first".utf8), Array("third".utf8)])
        XCTAssertEqual(decoded.skippedBytes, 24)
        // A record whose length swallows what follows is skipped the same way.
        var swallowing = file([Array("a".utf8)]) + [0xA5, 0x5A, 0, 0, 0x0B, 0xB8, 0, 0, 0, 0] + Array("part".utf8)
        swallowing += QueueFileCodec.encode(seq: 2, message: Array("after".utf8))
        XCTAssertEqual(QueueFileCodec.decode(swallowing).messages, [Array("a".utf8), Array("after".utf8)])
    }

    func testA010QueueIsCarriedIntoThisReleasesFileAndRemovedThere() throws {
        try FileManager.default.createDirectory(atPath: directory + "/queue", withIntermediateDirectories: true)
        let old = directory + "/queue/\(peer).queue"
        try Data([0, 0, 0, 2, 7, 8, 0, 0, 0, 1, 9]).write(to: URL(fileURLWithPath: old))
        let store = try MessageQueueStore(stateDirectory: directory, logger: logger, newEpoch: { 7 })
        XCTAssertEqual(try store.pending(peer), [[7, 8], [9]])
        let current = directory + "/queue/\(peer).queue3"
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: current))), QueueFileCodec.encodeFile(epoch: 7, records: [(1, [7, 8]), (2, [9])]))
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
        let path = directory + "/queue/\(peer).queue3"
        for (bytes, words) in [(Array("PEERDQ4\n".utf8) + [1, 2, 3], "another layout (its header says PEERDQ4?)"),
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
        let path = directory + "/queue/\(peer).queue3"
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
        let path = directory + "/queue/\(peer).queue3"
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
        XCTAssertEqual(try store.read(peer, skip: 0, maxBytes: 250).map { $0.data[0] }, [1, 2], "as many as fit")
        XCTAssertEqual(try store.read(peer, skip: 2, maxBytes: 1000, maxCount: 3).map { $0.data[0] }, [3, 4, 5], "at most maxCount")
        XCTAssertEqual(try store.read(peer, skip: 0, maxBytes: 99), [], "none when the first does not fit")
        XCTAssertEqual(try store.read(peer, skip: 6, maxBytes: 1000), [], "nothing past the end")
        try store.removeFirst(2, for: peer)
        XCTAssertEqual(try store.read(peer, skip: 1, maxBytes: 1000).map { $0.data[0] }, [4, 5, 6], "after an acknowledgement")
        // The bytes on disk are what is read: change one, and the read shows it.
        let path = directory + "/queue/\(peer).queue3"
        let handle = try XCTUnwrap(FileHandle(forUpdatingAtPath: path))
        handle.seek(toFileOffset: UInt64(16 + 5 * 118 + 18))
        handle.write(Data([0xEE]))
        handle.closeFile()
        XCTAssertEqual(try store.read(peer, skip: 3, maxBytes: 1000).first?.data.first, 0xEE)
    }

    /// A version 3 file of `messages`, seqs from 1, under epoch 1.
    private func file(_ messages: [[UInt8]]) -> [UInt8] {
        QueueFileCodec.encodeFile(epoch: 1, records: messages.enumerated().map { (UInt64($0.offset + 1), $0.element) })
    }

    /// Each message keeps its tag (the file's epoch, its seq) across
    /// restarts and compactions; a file made anew once everything was
    /// acknowledged starts a new epoch (issue 42, point 6).
    func testTagsAreStableAndANewFileTakesANewEpoch() throws {
        let epochs = EpochSource()
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger, newEpoch: epochs.next)
        for n in 1...3 { XCTAssertTrue(try store.append(Array("m\(n)".utf8), for: peer)) }
        XCTAssertEqual(try store.read(peer, skip: 0, maxBytes: .max).map(\.tag), (1...3).map { QueueTag(epoch: 1, seq: $0) })
        try store.removeFirst(1, for: peer)
        var reopened = try MessageQueueStore(stateDirectory: directory, logger: logger, newEpoch: epochs.next)
        XCTAssertTrue(try reopened.append(Array("m4".utf8), for: peer))
        XCTAssertEqual(try reopened.read(peer, skip: 0, maxBytes: .max).map(\.tag), (2...4).map { QueueTag(epoch: 1, seq: $0) },
                       "the same tags after a restart, and the next seq goes on")
        try reopened.removeFirst(3, for: peer)
        XCTAssertTrue(try reopened.append(Array("m5".utf8), for: peer))
        XCTAssertEqual(try reopened.read(peer, skip: 0, maxBytes: .max).map(\.tag), [QueueTag(epoch: 2, seq: 1)], "a new file, a new epoch")
        // A compaction keeps the epoch and the seqs.
        for _ in 1...4 { XCTAssertTrue(try reopened.append(Array(repeating: 7, count: 512 * 1024), for: peer)) }
        try reopened.removeFirst(4, for: peer)
        XCTAssertEqual(try MessageQueueStore(stateDirectory: directory, logger: logger, newEpoch: epochs.next).read(peer, skip: 0, maxBytes: .max)
            .map(\.tag), [QueueTag(epoch: 2, seq: 5)])
    }

    /// 0.2.0's queues (`.queue2`, an app's `.appqueue`) are carried into
    /// this release's files with tags, after what those hold, then removed.
    func testA020QueueIsCarriedOverWithTags() throws {
        var store = try MessageQueueStore(stateDirectory: directory, logger: logger, newEpoch: { 5 })
        XCTAssertTrue(try store.append(Array("kept".utf8), for: peer))
        let old = directory + "/queue/\(peer).queue2"
        try Data(QueueFileCodec.encodeVersion2File([Array("two".utf8), Array("three".utf8)])).write(to: URL(fileURLWithPath: old))
        let app = directory + "/queue/\(peer).chat.appqueue"
        try Data(QueueFileCodec.encodeVersion2File([Array("for chat".utf8)])).write(to: URL(fileURLWithPath: app))
        let carried = try MessageQueueStore(stateDirectory: directory, logger: logger, newEpoch: { 6 })
        XCTAssertEqual(try carried.read(peer, skip: 0, maxBytes: .max).map { "\($0.tag) \(String(decoding: $0.data, as: UTF8.self))" },
                       ["5:1 kept", "5:2 two", "5:3 three"])
        XCTAssertEqual(try carried.read(peer + ".chat", skip: 0, maxBytes: .max).map { "\($0.tag) \(String(decoding: $0.data, as: UTF8.self))" },
                       ["6:1 for chat"])
        XCTAssertFalse(FileManager.default.fileExists(atPath: old))
        XCTAssertFalse(FileManager.default.fileExists(atPath: app))
        XCTAssertTrue(FileManager.default.fileExists(atPath: directory + "/queue/\(peer).chat.appqueue3"))
    }

    /// A counter for epochs: 1, 2, …
    private final class EpochSource: @unchecked Sendable {
        private var last: UInt64 = 0
        /// The next epoch (tests run it on one thread).
        func next() -> UInt64 {
            last += 1
            return last
        }
    }
}
