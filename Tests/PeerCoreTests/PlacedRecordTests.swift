import XCTest
@testable import PeerCore
import PeerProtocol

/// The record of a transfer's small files in place (``PlacedRecord``):
/// its bytes pinned, a damaged header refused, and what a slot means to a
/// resume, as a table.
final class PlacedRecordTests: XCTestCase {
    private let flow = FlowID(bytes: Array(1...16))!
    private let boot = [UInt8](repeating: 0xB0, count: 16)

    func testTheHeaderAndASlotArePinned() {
        let header = PlacedRecord.encode(.init(flow: flow, bootID: boot, hash: .sha256))
        XCTAssertEqual(header.count, 64)
        XCTAssertEqual(Array(header[0..<8]), Array("PEERDP1\n".utf8))
        XCTAssertEqual(Array(header[8..<24]), Array(1...16))
        XCTAssertEqual(Array(header[24..<40]), boot)
        XCTAssertEqual(header[40], 2, "SHA-256 is 2, BLAKE2b-256 is 1")
        XCTAssertEqual(Array(header[41..<60]), [UInt8](repeating: 0, count: 19))
        XCTAssertEqual(BigEndian.read(header, at: 60, width: 4), UInt64(CRC32.checksum(header[0..<60])))
        XCTAssertEqual(PlacedRecord.encode(.init(flow: flow, bootID: boot, hash: .blake2b))[40], 1)
        let slot = PlacedRecord.slot(file: 7, hash: [UInt8](repeating: 0xAA, count: 32))
        XCTAssertEqual(slot.offset, 64 + 40 * 7)
        XCTAssertEqual(slot.bytes.count, 40)
        XCTAssertEqual(Array(slot.bytes[32..<36]), [0, 0, 0, 7])
        XCTAssertEqual(BigEndian.read(slot.bytes, at: 36, width: 4), UInt64(CRC32.checksum(slot.bytes[0..<36])))
    }

    func testDecodeReadsFinishedSlotsAndRefusesADamagedHeader() {
        var bytes = PlacedRecord.encode(.init(flow: flow, bootID: boot, hash: .blake2b)) + [UInt8](repeating: 0, count: 40 * 3)
        for file in [0, 2] {
            let slot = PlacedRecord.slot(file: file, hash: [UInt8](repeating: UInt8(file + 1), count: 32))
            bytes.replaceSubrange(Int(slot.offset)..<(Int(slot.offset) + 40), with: slot.bytes)
        }
        bytes[64 + 40 * 2 + 5] ^= 1   // file 2's slot, torn
        let record = PlacedRecord.decode(bytes)
        XCTAssertEqual(record?.header, .init(flow: flow, bootID: boot, hash: .blake2b))
        XCTAssertEqual(record?.hashes, [0: [UInt8](repeating: 1, count: 32)])
        var damaged = bytes
        damaged[30] ^= 1
        XCTAssertNil(PlacedRecord.decode(damaged), "a header whose CRC fails is no record")
        XCTAssertNil(PlacedRecord.decode(BlockRecord.encode(.init(flow: flow, file: 0, size: 1, blockSize: 131_072, bootID: boot))),
                     "a block record is not this record")
    }

    /// What a file's slot means when its offer comes again.
    func testASlotTellsAResumeTheFileIsInPlaceOrToBeRenamed() {
        let hash = [UInt8](repeating: 9, count: 32)
        var slots = PlacedRecord.encode(.init(flow: flow, bootID: boot, hash: .blake2b)) + [UInt8](repeating: 0, count: 80)
        let slot = PlacedRecord.slot(file: 1, hash: hash)
        slots.replaceSubrange(Int(slot.offset)..<(Int(slot.offset) + 40), with: slot.bytes)
        let record = PlacedRecord.decode(slots)!
        func expected(file: UInt32, size: Int64, hash kind: BlockHashKind = .blake2b, flow: FlowID? = nil) -> BlockRecord.Header {
            BlockRecord.Header(flow: flow ?? self.flow, file: file, size: size, blockSize: 131_072, bootID: boot, hash: kind)
        }
        let otherFlow = FlowID(bytes: Array(17...32))!
        let rows: [(String, BlockRecord.Header, Bool, ResumePoint)] = [
            ("in place", expected(file: 1, size: 100), false, .complete),
            ("flushed, not yet renamed", expected(file: 1, size: 100), true, .from(hashes: [hash])),
            ("no slot", expected(file: 0, size: 100), true, .fresh),
            ("no slot, no partial", expected(file: 0, size: 100), false, .fresh),
            ("another transfer", expected(file: 1, size: 100, flow: otherFlow), false, .fresh),
            ("the session's hash changed: received again", expected(file: 1, size: 100, hash: .sha256), true, .fresh),
            ("an empty file in place", expected(file: 1, size: 0), false, .complete),
        ]
        for (name, header, partial, point) in rows {
            let asBlocks = PlacedRecord.asBlockRecord(record, expected: header)
            XCTAssertEqual(ResumePoint.decide(expected: header, record: asBlocks, partialExists: partial), point, name)
        }
    }
}
