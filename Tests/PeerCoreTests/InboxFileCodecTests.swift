import Foundation
import XCTest
@testable import PeerCore

final class InboxFileCodecTests: XCTestCase {
    private let peer = "0123456789abcdef0123456789abcdef"
    private let other = "fedcba9876543210fedcba9876543210"
    private let time = Date(timeIntervalSince1970: 1_796_000_000.123)
    private let peerBytes: [UInt8] = [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF]
    private var empty: [UInt8] { InboxFileCodec.fileHeader(marks: [:]) }

    /// The bytes on disk are pinned: docs/control-protocol.md describes them.
    func testRecordBytesArePinned() {
        let record = InboxFileCodec.encode(id: 1, received: time, peerID: peer, tag: QueueTag(epoch: 0x0A0B, seq: 3), data: Array("hi".utf8))
        XCTAssertEqual(InboxFileCodec.header, Array("PEERDI2\n".utf8))
        XCTAssertEqual(Array(record[0..<6]), [0xA5, 0x5A, 0, 0, 0, 50])
        XCTAssertEqual(Array(record[6..<10]), bigEndian32(CRC32.checksum(record[10...])))
        XCTAssertEqual(Array(record[10..<18]), [0, 0, 0, 0, 0, 0, 0, 1])
        XCTAssertEqual(Array(record[26..<42]), peerBytes)
        XCTAssertEqual(Array(record[42..<50]), [0, 0, 0, 0, 0, 0, 0x0A, 0x0B], "epoch")
        XCTAssertEqual(Array(record[50..<58]), [0, 0, 0, 0, 0, 0, 0, 3], "seq")
        XCTAssertEqual(Array(record[58...]), Array("hi".utf8))
        XCTAssertEqual(record.count, InboxFileCodec.recordSize(dataCount: 2))
        XCTAssertEqual(Array(InboxFileCodec.encode(id: 1, received: time, peerID: peer, data: [])[42..<58]), Array(repeating: 0, count: 16),
                       "no tag: epoch and seq 0")
        // The header: marks_len, marks_crc, then 32 bytes a mark.
        let zero: [UInt8] = Array(repeating: 0, count: 8)
        XCTAssertEqual(empty, Array("PEERDI2\n".utf8) + [0, 0, 0, 0] + bigEndian32(CRC32.checksum(zero)) + zero)
        let marked = InboxFileCodec.fileHeader(lastID: 0x0102, marks: [peer: QueueTag(epoch: 2, seq: 9)])
        let lastID: [UInt8] = [0, 0, 0, 0, 0, 0, 1, 2]
        let mark = peerBytes + [0, 0, 0, 0, 0, 0, 0, 2] + [0, 0, 0, 0, 0, 0, 0, 9]
        XCTAssertEqual(marked, Array("PEERDI2\n".utf8) + [0, 0, 0, 32] + bigEndian32(CRC32.checksum(lastID + mark)) + lastID + mark)
        XCTAssertEqual(InboxFileCodec.decode(marked).lastID, 0x0102)
    }

    func testDecodeKeepsWaitingRecordsAndSkipsTakenOnes() {
        let first = InboxFileCodec.encode(id: 1, received: time, peerID: peer, data: [1])
        var second = InboxFileCodec.encode(id: 2, received: time, peerID: peer, data: [2, 2])
        second[InboxFileCodec.stateOffset] = InboxFileCodec.taken
        let third = InboxFileCodec.encode(id: 3, received: time, peerID: peer, data: [])
        let decoded = InboxFileCodec.decode(empty + first + second + third)
        XCTAssertEqual(decoded.entries.map(\.id), [1, 3])
        XCTAssertEqual(decoded.entries.map(\.size), [1, 0])
        XCTAssertEqual(decoded.entries.map(\.peerID), [peer, peer])
        XCTAssertEqual(decoded.entries[1].offset, 24 + first.count + second.count)
        XCTAssertEqual(decoded.lastID, 3, "a taken record's id is never given again")
        XCTAssertEqual(decoded.entries[0].received.timeIntervalSince1970, 1_796_000_000.123, accuracy: 0.001)
    }

    /// The marks: the header's, then every record's tag, taken ones too,
    /// the last one per sender winning.
    func testMarksComeFromTheHeaderAndEveryRecord() {
        let header = InboxFileCodec.fileHeader(marks: [peer: QueueTag(epoch: 1, seq: 40), other: QueueTag(epoch: 5, seq: 2)])
        var taken = InboxFileCodec.encode(id: 1, received: time, peerID: peer, tag: QueueTag(epoch: 1, seq: 41), data: [1])
        taken[InboxFileCodec.stateOffset] = InboxFileCodec.taken
        let waiting = InboxFileCodec.encode(id: 2, received: time, peerID: peer, tag: QueueTag(epoch: 1, seq: 42), data: [2])
        let plain = InboxFileCodec.encode(id: 3, received: time, peerID: other, data: [3])
        let decoded = InboxFileCodec.decode(header + taken + waiting + plain)
        XCTAssertEqual(decoded.marks, [peer: QueueTag(epoch: 1, seq: 42), other: QueueTag(epoch: 5, seq: 2)])
        XCTAssertEqual(decoded.entries.map(\.tag), [QueueTag(epoch: 1, seq: 42), nil])
        XCTAssertFalse(decoded.marksDamaged)
        // Damaged marks are left out; the records are still found.
        var bad = header
        bad[30] ^= 0xFF
        let damaged = InboxFileCodec.decode(bad + taken + waiting + plain)
        XCTAssertTrue(damaged.marksDamaged)
        XCTAssertEqual(damaged.entries.map(\.id), [2, 3])
        XCTAssertEqual(damaged.marks, [peer: QueueTag(epoch: 1, seq: 42)])
    }

    /// An earlier release's inbox (version 1) decodes, to be carried over.
    func testAVersion1FileDecodes() {
        let record = InboxFileCodec.encodeVersion1(id: 7, received: time, peerID: peer, data: Array("old".utf8))
        XCTAssertEqual(Array(record[0..<6]), [0xA5, 0x5A, 0, 0, 0, 35])
        let decoded = InboxFileCodec.decode(InboxFileCodec.header1 + record)
        XCTAssertEqual(decoded.version, 1)
        XCTAssertEqual(decoded.entries.map(\.id), [7])
        XCTAssertEqual(decoded.entries.map(\.tag), [nil])
        XCTAssertEqual(InboxFileCodec.data(ofRecord: InboxFileCodec.header1 + record, at: 8, version: 1), Array("old".utf8))
    }

    func testABadRecordCostsOnlyItself() {
        let first = InboxFileCodec.encode(id: 1, received: time, peerID: peer, data: Array(repeating: 7, count: 50))
        var bad = InboxFileCodec.encode(id: 2, received: time, peerID: peer, data: Array(repeating: 8, count: 50))
        bad[60] ^= 0xFF
        let third = InboxFileCodec.encode(id: 3, received: time, peerID: peer, data: Array(repeating: 9, count: 50))
        let cut = Array(InboxFileCodec.encode(id: 4, received: time, peerID: peer, data: [1, 2, 3]).prefix(20))
        let decoded = InboxFileCodec.decode(empty + first + bad + third + cut)
        XCTAssertEqual(decoded.entries.map(\.id), [1, 3])
        XCTAssertEqual(decoded.skippedBytes, bad.count)
        XCTAssertEqual(decoded.wholeBytes, 24 + first.count + bad.count + third.count)
        XCTAssertEqual(InboxFileCodec.data(ofRecord: third), Array(repeating: 9, count: 50))
        XCTAssertNil(InboxFileCodec.data(ofRecord: bad))
    }

    func testAFileWithoutTheHeaderHoldsNothing() {
        XCTAssertEqual(InboxFileCodec.decode(Array("garbage".utf8)).entries, [])
        XCTAssertEqual(InboxFileCodec.decode(Array("PEERDI2\n".utf8) + [0, 0]).entries, [], "a header cut short")
    }

    private func bigEndian32(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
