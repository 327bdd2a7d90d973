import FoundationEssentials
import XCTest
@testable import PeerCore
import PeerProtocol

/// The records of a `datagrams` socket (docs/control-protocol.md,
/// "Datagrams"): pinned bytes both ways.
final class DatagramRecordTests: XCTestCase {
    private let peer = UUID(uuidString: "00112233-4455-6677-8899-AABBCCDDEEFF")!

    func testASendRecordIsKindUUIDData() {
        let record = DatagramRecord.send(to: peer, Array("hi".utf8))
        XCTAssertEqual(record, [0x01, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF, 0x68, 0x69])
        let parsed = record.withUnsafeBytes { DatagramRecord.parseSend($0) }
        XCTAssertEqual(parsed?.peer, peer)
        XCTAssertEqual(parsed?.dataOffset, 17)
        XCTAssertNil([UInt8](repeating: 1, count: 16).withUnsafeBytes { DatagramRecord.parseSend($0) }, "shorter than a header")
        XCTAssertNil(([0x02] + record.dropFirst()).withUnsafeBytes { DatagramRecord.parseSend($0) }, "another kind")
    }

    func testAReceivedRecordCarriesWhatWasLostBeforeIt() {
        var record = [UInt8](repeating: 0, count: DatagramRecord.receiveHeader) + Array("yo".utf8)
        record.withUnsafeMutableBytes { DatagramRecord.writeReceived(from: peer, lost: 0x0102_0304, into: $0) }
        XCTAssertEqual(Array(record[0..<17]), [0x01, 0x00, 0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88, 0x99, 0xAA, 0xBB, 0xCC, 0xDD, 0xEE, 0xFF])
        XCTAssertEqual(Array(record[17..<21]), [0x01, 0x02, 0x03, 0x04])
        let parsed = DatagramRecord.parseReceived(record)
        XCTAssertEqual(parsed?.peer, peer)
        XCTAssertEqual(parsed?.lost, 0x0102_0304)
        XCTAssertEqual(parsed.map { Array($0.data) }, Array("yo".utf8))
        record.withUnsafeMutableBytes { DatagramRecord.writeReceived(from: peer, lost: 1 << 40, into: $0) }
        XCTAssertEqual(DatagramRecord.parseReceived(record)?.lost, UInt32.max, "lost saturates")
        XCTAssertEqual(DatagramRecord.maxRecord, 1_221)
    }
}
