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
        XCTAssertEqual(try inbox.read(from: reader), 19)
        XCTAssertEqual(try frames(inbox, max: 100), [[9] + [UInt8](repeating: 7, count: 19)])
    }
}
