@testable import PeerCore
@testable import PeerTools
import XCTest
import PeerProtocol

/// The sender's and receiver's order of a file's bytes (docs/protocol.md §8), as tables.
final class TransferCursorTests: XCTestCase {
    func testSendCursorCutsChunksAtBlockEndsAndHashesSkippedBlocks() {
        // 300,000 bytes: blocks of 131,072 (two whole, one of 37,856); resumed from block 1.
        var cursor = SendCursor(files: [.init(index: 4, size: 300_000, firstBlock: 1), .init(index: 7, size: 0, firstBlock: 0)])
        var steps: [SendCursor.Step] = []
        while true {
            let step = cursor.next(maxChunk: 100_000)
            steps.append(step)
            if step == .done { break }
        }
        XCTAssertEqual(steps, [
            .bytes(file: 4, offset: 0, length: 131_072, send: false, endsBlock: 0),
            .bytes(file: 4, offset: 131_072, length: 100_000, send: true, endsBlock: nil),
            .bytes(file: 4, offset: 231_072, length: 31_072, send: true, endsBlock: 1),
            .bytes(file: 4, offset: 262_144, length: 37_856, send: true, endsBlock: 2),
            .fileEnd(file: 4),
            .fileEnd(file: 7),
            .done,
        ])
        XCTAssertEqual(cursor.filesDone, 2)
    }

    func testReceiveCursorTable() {
        let plan = BlockPlan(fileSize: 300_000)
        var cursor = ReceiveCursor(plan: plan, firstBlock: 1)
        XCTAssertEqual(cursor.offset, 131_072)
        XCTAssertEqual(cursor.chunk(at: 0, count: 10), .failure(.outOfOrder(expected: 131_072, got: 0)))
        XCTAssertEqual(cursor.chunk(at: 131_072, count: 131_073), .failure(.badChunk("a chunk that crosses the end of block 1")))
        XCTAssertEqual(cursor.chunk(at: 131_072, count: 100_000), .success(nil))
        XCTAssertEqual(cursor.blockHash(1), .unexpectedBlock(1), "block 1 is not complete yet")
        XCTAssertEqual(cursor.chunk(at: 231_072, count: 31_072), .success(1))
        XCTAssertEqual(cursor.chunk(at: 262_144, count: 1), .failure(.badChunk("a chunk before the hash of block 1")))
        XCTAssertEqual(cursor.end(), .earlyEnd)
        XCTAssertNil(cursor.blockHash(1))
        XCTAssertEqual(cursor.chunk(at: 262_144, count: 37_856), .success(2))
        XCTAssertNil(cursor.blockHash(2))
        XCTAssertTrue(cursor.isComplete)
        XCTAssertNil(cursor.end())
        XCTAssertEqual(cursor.chunk(at: 300_000, count: 1), .failure(.badChunk("a chunk past the file's end")))
        XCTAssertNil(ReceiveCursor(plan: BlockPlan(fileSize: 0), firstBlock: 0).end(), "an empty file ends at once")
    }

    func testProgressLineWords() {
        var info = TransferInfo(id: "x", direction: .send, peer: UUID(), name: "b", state: .active, totalFiles: 7, totalBytes: 1 << 30,
                                acceptedFiles: 7, acceptedBytes: 1 << 30, filesDone: 3, bytes: 512 << 20, rate: 430_000_000, eta: 1.2)
        XCTAssertEqual(ProgressLine.render(info), "[##########..........]  50%  512.0 MiB / 1.0 GiB  3/7 files  410.1 MiB/s  ETA 0:01")
        info.rate = 0
        info.state = .interrupted
        XCTAssertEqual(ProgressLine.render(info), "[##########..........]  50%  512.0 MiB / 1.0 GiB  3/7 files  (interrupted: waiting for the peer)")
        XCTAssertEqual(ProgressLine.bytes(1023), "1023 B")
        XCTAssertEqual(ProgressLine.duration(3723), "1:02:03")
    }
}

/// Turns on a session's bulk room rotate, so no flow always goes first.
final class BulkTurnsTests: XCTestCase {
    func testRoundsRotateTheFirstFlow() {
        var turns = BulkTurns()
        XCTAssertEqual(turns.order(["a", "b", "c"]), ["a", "b", "c"])
        XCTAssertEqual(turns.order(["a", "b", "c"]), ["b", "c", "a"])
        XCTAssertEqual(turns.order(["a", "b", "c"]), ["c", "a", "b"])
        XCTAssertEqual(turns.order(["a", "b"]), ["b", "a"], "the fourth round of two flows starts with the second")
        XCTAssertEqual(turns.order([String]()), [])
        XCTAssertEqual(BulkTurns.quantum, 262_144)
    }
}
