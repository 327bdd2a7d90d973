import Glibc
import XCTest
@testable import PeerIO
@testable import PeerSystem

/// Issue 44: the buffers bulk bytes wait in between threads are reused,
/// bounded, and given back when bulk work ends; a pipe to a client grows.
final class BulkBufferTests: XCTestCase {
    override func tearDown() { WriteBuffers.drain() }

    func testABufferFilledAgainKeepsItsStorage() {
        let buffer = BulkBuffer()
        let big = [UInt8](repeating: 1, count: 65_000)
        big.withUnsafeBytes { buffer.fill(from: $0) }
        let address = buffer.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }
        let small = [UInt8](repeating: 2, count: 1_000)
        small.withUnsafeBytes { buffer.fill(from: $0) }
        XCTAssertEqual(buffer.withUnsafeBytes { Array($0) }, small, "the new contents, not the old")
        XCTAssertEqual(buffer.withUnsafeBytes { UInt(bitPattern: $0.baseAddress) }, address, "the same storage: no allocation")
        XCTAssertGreaterThanOrEqual(buffer.capacity, 65_000)
    }

    func testWriteBuffersAreReusedBoundedAndDrained() {
        WriteBuffers.drain()
        let bytes = [UInt8](repeating: 9, count: 4_096)
        let first = bytes.withUnsafeBytes { WriteBuffers.take(copying: $0) }
        XCTAssertEqual(first.withUnsafeBytes { Array($0) }, bytes)
        WriteBuffers.giveBack(first)
        let again = [UInt8](repeating: 3, count: 10).withUnsafeBytes { WriteBuffers.take(copying: $0) }
        XCTAssertTrue(again === first, "a buffer given back is the next one taken")
        XCTAssertEqual(again.withUnsafeBytes { Array($0) }, [UInt8](repeating: 3, count: 10))
        for _ in 0..<(WriteBuffers.kept + 10) { WriteBuffers.giveBack(BulkBuffer()) }
        XCTAssertEqual(WriteBuffers.keptCount, WriteBuffers.kept, "no more than a window's worth waits")
        WriteBuffers.drain()
        XCTAssertEqual(WriteBuffers.keptCount, 0, "bulk work ended: every buffer goes")
    }

    func testAPipeGrowsAndNothingElseDoes() throws {
        var ends: [Int32] = [0, 0]
        XCTAssertEqual(pipe(&ends), 0)
        defer { close(ends[0]); close(ends[1]) }
        XCTAssertTrue(PipeBuffer.widen(ends[1], to: 512 * 1024))
        XCTAssertGreaterThanOrEqual(fcntl(ends[0], 1032), 512 * 1024, "F_GETPIPE_SZ: both ends share one buffer")
        XCTAssertTrue(PipeBuffer.widen(ends[1], to: 4_096), "already larger: never shrunk")
        XCTAssertGreaterThanOrEqual(fcntl(ends[0], 1032), 512 * 1024)
        let file = open("/dev/null", O_WRONLY)
        defer { close(file) }
        XCTAssertFalse(PipeBuffer.widen(file, to: 512 * 1024), "not a pipe")
    }
}
