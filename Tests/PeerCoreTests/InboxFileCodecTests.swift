import Foundation
import XCTest
@testable import PeerCore

final class InboxFileCodecTests: XCTestCase {
    private let peer = "0123456789abcdef0123456789abcdef"
    private let time = Date(timeIntervalSince1970: 1_796_000_000.123)

    /// The bytes on disk are pinned: docs/control-protocol.md describes them.
    func testRecordBytesArePinned() {
        let record = InboxFileCodec.encode(id: 1, received: time, peerID: peer, data: Array("hi".utf8))
        XCTAssertEqual(InboxFileCodec.header, Array("PEERDI1\n".utf8))
        XCTAssertEqual(Array(record[0..<6]), [0xA5, 0x5A, 0, 0, 0, 34])
        XCTAssertEqual(Array(record[10..<18]), [0, 0, 0, 0, 0, 0, 0, 1])
        XCTAssertEqual(Array(record[26..<42]), [0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF, 0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF])
        XCTAssertEqual(Array(record[42...]), Array("hi".utf8))
        XCTAssertEqual(record.count, InboxFileCodec.recordSize(dataCount: 2))
    }

    func testDecodeKeepsWaitingRecordsAndSkipsTakenOnes() {
        let first = InboxFileCodec.encode(id: 1, received: time, peerID: peer, data: [1])
        var second = InboxFileCodec.encode(id: 2, received: time, peerID: peer, data: [2, 2])
        second[InboxFileCodec.stateOffset] = InboxFileCodec.taken
        let third = InboxFileCodec.encode(id: 3, received: time, peerID: peer, data: [])
        let decoded = InboxFileCodec.decode(InboxFileCodec.header + first + second + third)
        XCTAssertEqual(decoded.entries.map(\.id), [1, 3])
        XCTAssertEqual(decoded.entries.map(\.size), [1, 0])
        XCTAssertEqual(decoded.entries.map(\.peerID), [peer, peer])
        XCTAssertEqual(decoded.entries[1].offset, 8 + first.count + second.count)
        XCTAssertEqual(decoded.lastID, 3, "a taken record's id is never given again")
        XCTAssertEqual(decoded.entries[0].received.timeIntervalSince1970, 1_796_000_000.123, accuracy: 0.001)
    }

    func testABadRecordCostsOnlyItself() {
        let first = InboxFileCodec.encode(id: 1, received: time, peerID: peer, data: Array(repeating: 7, count: 50))
        var bad = InboxFileCodec.encode(id: 2, received: time, peerID: peer, data: Array(repeating: 8, count: 50))
        bad[60] ^= 0xFF
        let third = InboxFileCodec.encode(id: 3, received: time, peerID: peer, data: Array(repeating: 9, count: 50))
        let cut = Array(InboxFileCodec.encode(id: 4, received: time, peerID: peer, data: [1, 2, 3]).prefix(20))
        let decoded = InboxFileCodec.decode(InboxFileCodec.header + first + bad + third + cut)
        XCTAssertEqual(decoded.entries.map(\.id), [1, 3])
        XCTAssertEqual(decoded.skippedBytes, bad.count)
        XCTAssertEqual(decoded.wholeBytes, 8 + first.count + bad.count + third.count)
        XCTAssertEqual(InboxFileCodec.data(ofRecord: third), Array(repeating: 9, count: 50))
        XCTAssertNil(InboxFileCodec.data(ofRecord: bad))
    }

    func testAFileWithoutTheHeaderHoldsNothing() {
        XCTAssertEqual(InboxFileCodec.decode(Array("garbage".utf8)).entries, [])
    }
}
