import XCTest
@testable import PeerCore

final class CRC32Tests: XCTestCase {
    func testKnownValues() {
        XCTAssertEqual(CRC32.checksum(Array("123456789".utf8)), 0xCBF4_3926, "the standard check value")
        XCTAssertEqual(CRC32.checksum([UInt8]()), 0)
    }

    func testQueueRecordLayoutIsPinned() {
        XCTAssertEqual(QueueFileCodec.header, Array("PEERDQ3\n".utf8))
        XCTAssertEqual(QueueFileCodec.fileHeader(epoch: 0x0102_0304_0506_0708), Array("PEERDQ3\n".utf8) + [1, 2, 3, 4, 5, 6, 7, 8])
        // Version 3: the checksum covers the seq and the message.
        let seq: [UInt8] = [0, 0, 0, 0, 0, 0, 0, 2]
        XCTAssertEqual(QueueFileCodec.encode(seq: 2, message: [0x61]),
                       [0xA5, 0x5A, 0, 0, 0, 1] + bigEndian(CRC32.checksum(seq + [0x61])) + seq + [0x61])
        // 0.2.0's version 2, read only.
        XCTAssertEqual(QueueFileCodec.encodeVersion2File([[0x61]]), Array("PEERDQ2\n".utf8) + [0xA5, 0x5A, 0, 0, 0, 1, 0xE8, 0xB7, 0xBE, 0x43, 0x61])
    }

    private func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
