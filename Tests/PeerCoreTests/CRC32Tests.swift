import XCTest
@testable import PeerCore

final class CRC32Tests: XCTestCase {
    func testKnownValues() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926, "the standard check value")
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }

    func testQueueRecordLayoutIsPinned() {
        XCTAssertEqual(QueueFileCodec.header, Array("PEERDQ2\n".utf8))
        XCTAssertEqual(QueueFileCodec.encode([0x61]), [0xA5, 0x5A, 0, 0, 0, 1, 0xE8, 0xB7, 0xBE, 0x43, 0x61])
    }
}
