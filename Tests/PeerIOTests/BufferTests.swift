import XCTest
@testable import PeerIO

final class LineBufferTests: XCTestCase {
    func testSplitsLinesAcrossChunks() {
        var buffer = LineBuffer(maxLineBytes: 100)
        XCTAssertEqual(buffer.append(Array("ab".utf8)), [])
        XCTAssertEqual(buffer.append(Array("c\r\nd\ne".utf8)), [Array("abc".utf8), Array("d".utf8)])
        XCTAssertEqual(buffer.pendingCount, 1)
    }

    func testRefusesOverlongLines() {
        var buffer = LineBuffer(maxLineBytes: 4)
        XCTAssertNil(buffer.append(Array("12345".utf8)), "no newline yet, already over")
        var other = LineBuffer(maxLineBytes: 4)
        XCTAssertNil(other.append(Array("123456\n".utf8)))
        var fine = LineBuffer(maxLineBytes: 4)
        XCTAssertEqual(fine.append(Array("1234\n".utf8)), [Array("1234".utf8)])
    }
}

final class OutboundQueueTests: XCTestCase {
    func testBoundRefusesInsteadOfGrowing() {
        var queue = OutboundQueue(limit: 10)
        XCTAssertTrue(queue.append(Array("12345".utf8)))
        XCTAssertTrue(queue.append(Array("67890".utf8)))
        XCTAssertFalse(queue.append(Array("x".utf8)))
        XCTAssertEqual(queue.byteCount, 10)
    }

    func testAnEmptyQueueTakesOneOversizedLine() {
        var queue = OutboundQueue(limit: 4)
        XCTAssertTrue(queue.append(Array("longer than four".utf8)))
        XCTAssertFalse(queue.append(Array("x".utf8)))
    }

    func testPartialWritesAndTruncationKeepLineBoundaries() {
        var queue = OutboundQueue(limit: 100)
        _ = queue.append(Array("line1\n".utf8))
        _ = queue.append(Array("line2\n".utf8))
        var written: [UInt8] = []
        // The socket takes three bytes, then would block.
        var budget = 3
        let drained = queue.flush { raw in
            guard budget > 0 else { return nil }
            let n = min(budget, raw.count)
            written += raw.prefix(n)
            budget -= n
            return n
        }
        XCTAssertFalse(drained)
        queue.truncateToCurrentLine()
        queue.appendUnbounded(Array("final\n".utf8))
        XCTAssertTrue(queue.flush { raw in written += raw; return raw.count })
        XCTAssertEqual(String(decoding: written, as: UTF8.self), "line1\nfinal\n", "the half-sent line is finished, the rest dropped")
        XCTAssertTrue(queue.isEmpty)
    }

    func testTruncationBeforeAnyWriteDropsEverything() {
        var queue = OutboundQueue(limit: 100)
        _ = queue.append(Array("a\n".utf8))
        queue.truncateToCurrentLine()
        XCTAssertTrue(queue.isEmpty)
        XCTAssertEqual(queue.byteCount, 0)
    }
}

final class LineBufferScanTests: XCTestCase {
    func testCarriageReturnSplitFromItsNewlineIsStillRemoved() {
        var buffer = LineBuffer(maxLineBytes: 100)
        XCTAssertEqual(buffer.append(Array("abc\r".utf8)), [])
        XCTAssertEqual(buffer.append(Array("\n\r\n".utf8)), [Array("abc".utf8), []])
        XCTAssertEqual(buffer.pendingCount, 0)
    }

    func testALongLineInSmallPiecesArrivesWhole() {
        var buffer = LineBuffer(maxLineBytes: 1 << 20)
        let piece = [UInt8](repeating: UInt8(ascii: "x"), count: 1000)
        for _ in 0..<1000 { XCTAssertEqual(buffer.append(piece), []) }
        XCTAssertEqual(buffer.pendingCount, 1_000_000)
        let lines = buffer.append(Array("y\nz".utf8))
        XCTAssertEqual(lines?.count, 1)
        XCTAssertEqual(lines?.first?.count, 1_000_001)
        XCTAssertEqual(buffer.pendingCount, 1)
    }
}

final class OutboundCoalescingTests: XCTestCase {
    func testSmallFramesJoinUntilTheChunkIsFullOrStarted() {
        var queue = OutboundQueue(limit: 1 << 20)
        for _ in 0..<10 { queue.appendCoalescing([UInt8](repeating: 1, count: 100), chunk: 450) }
        XCTAssertEqual(queue.byteCount, 1000)
        XCTAssertEqual(queue.chunkCount, 3, "100-byte frames joined into chunks of at most 450 bytes")
        // A chunk partly written is never extended (its offset is in flight).
        var partial = OutboundQueue(limit: 1 << 20)
        partial.appendCoalescing([1, 2, 3, 4])
        var calls = 0
        _ = partial.flush { _ in
            calls += 1
            return calls == 1 ? 2 : nil   // two bytes go, then the socket would block
        }
        partial.appendCoalescing([5])
        XCTAssertEqual(partial.chunkCount, 2)
        var written: [UInt8] = []
        XCTAssertTrue(partial.flush { raw in written += raw; return raw.count })
        XCTAssertEqual(written, [3, 4, 5], "bytes leave in order")
    }
}
