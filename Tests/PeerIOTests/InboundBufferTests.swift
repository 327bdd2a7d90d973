import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
@testable import PeerSystem

/// The session's read buffer over a real socket pair (tier 2): frames come
/// out whole and in order however the bytes were split, a partial frame
/// survives the next read, and a bad length is raised after the frames
/// before it.
final class InboundBufferTests: XCTestCase {
    private func socketPair() -> (FileDescriptor, FileDescriptor) {
        var fds: [Int32] = [0, 0]
        XCTAssertEqual(socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0, &fds), 0)
        return (FileDescriptor(rawValue: fds[0]), FileDescriptor(rawValue: fds[1]))
    }

    private func frames(_ inbox: InboundBuffer, max: Int = 65535) throws -> [[UInt8]] {
        var out: [[UInt8]] = []
        while let frame = try inbox.nextFrame(maxFrame: max) { out.append(Array(frame)) }
        return out
    }

    func testFramesSplitAcrossReadsComeOutWholeAndInOrder() throws {
        let (reader, writer) = socketPair()
        defer { reader.close(); writer.close() }
        let inbox = InboundBuffer(readSize: 8, largestFrame: 2 + 300)
        let big = [UInt8](repeating: 0xAB, count: 300)
        let stream: [UInt8] = [0, 3, 1, 2, 3] + [0x01, 0x2C] + big + [0, 1, 9]
        var got: [[UInt8]] = []
        // Seven bytes at a time: frames straddle every read.
        for start in stride(from: 0, to: stream.count, by: 7) {
            try writer.writeAll(Array(stream[start..<min(stream.count, start + 7)]))
            XCTAssertNotNil(try inbox.read(from: reader))
            got += try frames(inbox)
        }
        XCTAssertEqual(got, [[1, 2, 3], big, [9]])
        XCTAssertEqual(inbox.pendingCount, 0)
        XCTAssertNil(try inbox.read(from: reader), "nothing more: it would block")
    }

    func testABadLengthComesAfterTheFramesBeforeIt() throws {
        let (reader, writer) = socketPair()
        defer { reader.close(); writer.close() }
        let inbox = InboundBuffer(readSize: 64)
        try writer.writeAll([0, 2, 7, 7, 0x20, 0x01])
        XCTAssertEqual(try inbox.read(from: reader), 6)
        XCTAssertEqual(try inbox.nextFrame(maxFrame: 8192).map { Array($0) }, [7, 7])
        XCTAssertThrowsError(try inbox.nextFrame(maxFrame: 8192)) { XCTAssertEqual($0 as? WireError, .badFrameLength(8193)) }
    }

    func testMemoryIsLetGoOnlyWhenNothingIsPending() throws {
        let (reader, writer) = socketPair()
        defer { reader.close(); writer.close() }
        let inbox = InboundBuffer(readSize: 64)
        try writer.writeAll([0, 3, 1])
        _ = try inbox.read(from: reader)
        XCTAssertTrue(try frames(inbox).isEmpty)
        inbox.release()
        XCTAssertEqual(inbox.pendingCount, 3, "a partial frame is kept")
        try writer.writeAll([2, 3])
        _ = try inbox.read(from: reader)
        XCTAssertEqual(try frames(inbox), [[1, 2, 3]])
        inbox.release()
        XCTAssertEqual(inbox.pendingCount, 0)
        XCTAssertEqual(try inbox.read(from: reader), nil, "a released buffer reads again")
    }

    func testEndOfStreamReadsZero() throws {
        let (reader, writer) = socketPair()
        defer { reader.close() }
        writer.close()
        XCTAssertEqual(try InboundBuffer(readSize: 16).read(from: reader), 0)
    }

    func testGrowingKeepsWhatIsPending() throws {
        let (reader, writer) = socketPair()
        defer { reader.close(); writer.close() }
        let inbox = InboundBuffer(readSize: 8, largestFrame: 2 + 8)
        try writer.writeAll([0, 2, 1, 2, 0, 20, 9])
        XCTAssertEqual(try inbox.read(from: reader), 7)
        XCTAssertEqual(try frames(inbox), [[1, 2]])
        XCTAssertThrowsError(try inbox.nextFrame(maxFrame: 8), "20 bytes are over the small limit")
        inbox.resize(readSize: 64, largestFrame: 2 + 100)
        XCTAssertEqual(inbox.readSize, 64)
        XCTAssertEqual(inbox.pendingCount, 3, "the start of the large frame stays")
        try writer.writeAll([UInt8](repeating: 7, count: 19))
        // The small buffer fills first; the read after grows it.
        var got: [[UInt8]] = []
        while got.isEmpty, let count = try inbox.read(from: reader), count > 0 { got = try frames(inbox, max: 100) }
        XCTAssertEqual(got, [[9] + [UInt8](repeating: 7, count: 19)])
        XCTAssertEqual(inbox.heldBytes, 64 + 2 + 100)
    }

    /// The memory follows the traffic: a small first buffer for small
    /// reads, the whole capacity once a read fills it, and nothing after a
    /// tick in which no read filled it (the soak: a quiet session held its
    /// 320 KiB transfer buffer for as long as keepalives came).
    func testTheBufferGrowsForBulkAndGoesWhenTrafficIsSmall() throws {
        let (reader, writer) = socketPair()
        defer { reader.close(); writer.close() }
        let inbox = InboundBuffer(readSize: 256 * 1024)
        try writer.writeAll([0, 1, 42])
        XCTAssertEqual(try inbox.read(from: reader), 3)
        XCTAssertEqual(inbox.heldBytes, InboundBuffer.firstSize, "a keepalive takes the small buffer")
        XCTAssertEqual(try frames(inbox), [[42]])
        inbox.settle()
        XCTAssertEqual(inbox.heldBytes, 0, "no read filled it: let go")

        // Bulk: frames of 60,000 bytes, more than the first buffer holds.
        let frame = [0xEA, 0x60] + [UInt8](repeating: 7, count: 60_000)
        for _ in 0..<3 { try writer.writeAll(frame) }
        var got: [[UInt8]] = []
        while got.count < 3, let count = try inbox.read(from: reader), count > 0 { got += try frames(inbox) }
        XCTAssertEqual(got.count, 3)
        XCTAssertEqual(inbox.heldBytes, 256 * 1024 + 2 + 65535, "bulk grew it to its capacity")
        inbox.settle()
        XCTAssertEqual(inbox.heldBytes, 256 * 1024 + 2 + 65535, "a read filled it this tick: kept for the next")
        inbox.settle()
        XCTAssertEqual(inbox.heldBytes, 0, "a tick with no full read: let go")
    }

    func testAFrameLargerThanTheFirstBufferGrowsIt() throws {
        let (reader, writer) = socketPair()
        defer { reader.close(); writer.close() }
        let inbox = InboundBuffer(readSize: 64)
        let payload = [UInt8](repeating: 3, count: InboundBuffer.firstSize + 100)
        // One byte short of whole, then the last byte alone.
        let bytes: [UInt8] = [UInt8(payload.count >> 8), UInt8(payload.count & 0xFF)] + payload
        try writer.writeAll(Array(bytes.dropLast()))
        while let count = try inbox.read(from: reader), count > 0, inbox.pendingCount < bytes.count - 1 {}
        XCTAssertTrue(try frames(inbox).isEmpty)
        inbox.settle()
        XCTAssertEqual(inbox.pendingCount, bytes.count - 1, "a partial frame is never let go")
        try writer.writeAll([3])
        _ = try inbox.read(from: reader)
        XCTAssertEqual(try frames(inbox), [payload])
    }
}
