import Glibc
import XCTest
@testable import PeerSystem
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

final class OutputBufferTests: XCTestCase {
    /// A non-blocking pipe: its write end fills up, as a slow reader's would.
    private func pipePair() throws -> (read: Int32, write: Int32) {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        for end in ends { XCTAssertEqual(fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK), 0) }
        return (ends[0], ends[1])
    }

    private func drain(_ fd: Int32) -> [UInt8] {
        var out: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let got = chunk.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard got > 0 else { return out }
            out += chunk[..<got]
        }
    }

    func testWritesInOrderAcrossAFullPipeAndKeepsTheRest() throws {
        let (r, w) = try pipePair()
        defer { close(r); close(w) }
        var buffer = OutputBuffer(compactAfter: 4096, keepCapacity: 1 << 16)
        let message = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 7) }
        message.withUnsafeBytes { buffer.append($0) }
        var received: [UInt8] = []
        var rounds = 0
        while !buffer.isEmpty {
            let before = buffer.count
            let written = try buffer.write(to: w)
            XCTAssertEqual(buffer.count, before - written, "what was written leaves, nothing else")
            received += drain(r)
            rounds += 1
            XCTAssertLessThan(rounds, 1000)
        }
        XCTAssertGreaterThan(rounds, 1, "a pipe holds less than 300 KB: the first write stopped at EAGAIN")
        XCTAssertEqual(received, message)
    }

    func testAppendWhileBytesWaitKeepsOrder() throws {
        let (r, w) = try pipePair()
        defer { close(r); close(w) }
        var buffer = OutputBuffer(compactAfter: 16, keepCapacity: 1024)
        buffer.append { $0 += Array("first ".utf8) }
        buffer.append { $0 += Array("second".utf8) }
        XCTAssertEqual(try buffer.write(to: w), 12)
        XCTAssertTrue(buffer.isEmpty)
        XCTAssertEqual(drain(r), Array("first second".utf8))
    }

    func testAClosedReaderIsATypedError() throws {
        let (r, w) = try pipePair()
        close(r)
        defer { close(w) }
        signal(SIGPIPE, SIG_IGN)
        var buffer = OutputBuffer(keepCapacity: 1024)
        buffer.append { $0 += [1, 2, 3] }
        XCTAssertThrowsError(try buffer.write(to: w)) { error in
            XCTAssertEqual((error as? SystemError)?.errno, EPIPE)
        }
        XCTAssertEqual(buffer.count, 3, "nothing written, nothing lost")
    }

    /// Issue 21, point 4: the queue counts what its buffers cost, not their
    /// payload. 10,000 pongs of 27 bytes cost about their bytes (a chunk
    /// doubles only up to its 64 KiB), and nothing once written.
    func testMemoryCostCountsCapacitiesAndChunksNeverGrowPastTheirSize() {
        var queue = OutboundQueue(limit: 1 << 30)
        for _ in 0..<10_000 { queue.appendCoalescing([UInt8](repeating: 7, count: 27)) }
        XCTAssertEqual(queue.byteCount, 270_000)
        XCTAssertGreaterThanOrEqual(queue.memoryCost, 270_000)
        XCTAssertLessThanOrEqual(queue.memoryCost, 270_000 + 64 * 1024 + queue.chunkCount * OutboundQueue.bufferOverhead,
                                 "at most one chunk's room beyond the bytes")
        var big = [UInt8](); big.reserveCapacity(200_000); big += [UInt8](repeating: 1, count: 100_000)
        queue.appendCoalescing(big)
        XCTAssertGreaterThanOrEqual(queue.memoryCost, 270_000 + 200_000, "a buffer costs its capacity, not its count")
        XCTAssertTrue(queue.flushVectored { vectors in vectors.reduce(0) { $0 + $1.iov_len } })
        XCTAssertEqual(queue.memoryCost, 0)
        XCTAssertEqual(queue.byteCount, 0)
    }

    /// Answers (pongs) are counted until written, across partial writes,
    /// and joined into runs however many there are.
    func testAnswerBytesCountUntilWritten() {
        var queue = OutboundQueue(limit: 1 << 20)
        queue.appendCoalescing([1, 1, 1], answer: true)
        queue.appendCoalescing([2, 2, 2, 2])               // data between answers
        queue.appendCoalescing([3, 3], answer: true)
        queue.appendCoalescing([3, 3], answer: true)
        XCTAssertEqual(queue.answerBytes, 7)
        var budget = 2
        _ = queue.flush { raw in
            let n = min(budget, raw.count); budget -= n
            return n == 0 ? nil : n
        }
        XCTAssertEqual(queue.answerBytes, 5, "two bytes of the first answer are out")
        budget = 6
        _ = queue.flush { raw in
            let n = min(budget, raw.count); budget -= n
            return n == 0 ? nil : n
        }
        XCTAssertEqual(queue.answerBytes, 3, "the first answer and the data are out, one byte of the run")
        queue.truncateToCurrentLine()
        XCTAssertEqual(queue.answerBytes, queue.byteCount, "what is left of the chunk in flight is all answer")
        XCTAssertTrue(queue.flush { raw in raw.count })
        XCTAssertEqual(queue.answerBytes, 0)
        for _ in 0..<1000 { queue.appendCoalescing([9], answer: true) }
        XCTAssertEqual(queue.answerBytes, 1000)
        XCTAssertTrue(queue.flushVectored { vectors in vectors.reduce(0) { $0 + $1.iov_len } })
        XCTAssertEqual(queue.answerBytes, 0)
    }

    /// A session closing with pongs queued behind the chunk going out:
    /// truncating drops them (their run lies wholly in what is dropped)
    /// and must not trap (it did: the fresh-clone CI saw a sender die so
    /// when its peer was killed mid-transfer).
    func testTruncatingDropsAnswersQueuedBehindTheCurrentChunk() {
        var queue = OutboundQueue(limit: 1 << 20)
        queue.appendUnbounded([UInt8](repeating: 1, count: 100))   // a bulk frame, going out
        queue.appendUnbounded([UInt8](repeating: 2, count: 100))   // another, not started
        queue.appendCoalescing([3, 3, 3], answer: true)            // a pong behind them
        var budget = 10
        _ = queue.flush { raw in
            let n = min(budget, raw.count); budget -= n
            return n == 0 ? nil : n
        }
        XCTAssertEqual(queue.answerBytes, 3)
        queue.truncateToCurrentLine()
        XCTAssertEqual(queue.byteCount, 90, "the rest of the chunk in flight")
        XCTAssertEqual(queue.answerBytes, 0, "the pong behind it is dropped, and so is its run")
        XCTAssertTrue(queue.flush { raw in raw.count })
        queue.appendCoalescing([4], answer: true)
        XCTAssertEqual(queue.answerBytes, 1, "runs count afresh after a truncation")
    }
}
