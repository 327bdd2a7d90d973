import XCTest
@testable import PeerCore

final class TXTRecordTests: XCTestCase {
    private let id = String(repeating: "a", count: 32)

    func testRecordStartsWithVersionAndId() throws {
        let record = try TXTRecord(peerID: id, info: [TXTEntry(key: "color", value: "blue")])
        XCTAssertEqual(record.entries.map(\.encoded), ["txtvers=1", "id=\(id)", "color=blue"])
    }

    func testKeyLengthLimitIsNine() {
        XCTAssertNoThrow(try TXTRecord(peerID: id, info: [TXTEntry(key: "ninechars", value: "")]))
        XCTAssertThrowsError(try TXTRecord(peerID: id, info: [TXTEntry(key: "tencharsxx", value: "")])) { error in
            XCTAssertEqual(error as? TXTRecordError, .keyTooLong(key: "tencharsxx", length: 10))
            XCTAssertTrue("\(error)".contains("at most 9"))
        }
    }

    func testPairLimitIs255Bytes() {
        let fits = TXTEntry(key: "k", value: String(repeating: "v", count: 253))
        let over = TXTEntry(key: "k", value: String(repeating: "v", count: 254))
        XCTAssertNoThrow(try TXTRecord(peerID: id, info: [fits]))
        XCTAssertThrowsError(try TXTRecord(peerID: id, info: [over])) { error in
            XCTAssertEqual(error as? TXTRecordError, .pairTooLong(key: "k", bytes: 256))
        }
    }

    func testWholeRecordLimitIs1300Bytes() {
        let info = (0..<6).map { TXTEntry(key: "k\($0)", value: String(repeating: "v", count: 240)) }
        XCTAssertThrowsError(try TXTRecord(peerID: id, info: info)) { error in
            guard case .recordTooLong(let bytes) = error as? TXTRecordError else { return XCTFail("\(error)") }
            XCTAssertGreaterThan(bytes, 1300)
        }
        XCTAssertNoThrow(try TXTRecord(peerID: id, info: Array(info.prefix(4))))
    }

    func testReservedDuplicateAndMalformedKeys() {
        XCTAssertThrowsError(try TXTRecord(peerID: id, info: [TXTEntry(key: "ID", value: "x")])) {
            XCTAssertEqual($0 as? TXTRecordError, .keyReserved("ID"))
        }
        XCTAssertThrowsError(try TXTRecord(peerID: id, info: [TXTEntry(key: "a", value: "1"), TXTEntry(key: "A", value: "2")])) {
            XCTAssertEqual($0 as? TXTRecordError, .duplicateKey("A"))
        }
        XCTAssertThrowsError(try TXTRecord.parseInfo("novalue")) { XCTAssertEqual($0 as? TXTRecordError, .missingEquals("novalue")) }
        XCTAssertThrowsError(try TXTRecord(peerID: id, info: [TXTEntry(raw: "=x")])) { XCTAssertEqual($0 as? TXTRecordError, .emptyKey("=x")) }
        XCTAssertEqual(try TXTRecord.parseInfo("a=b=c"), TXTEntry(key: "a", value: "b=c"))
    }
}
