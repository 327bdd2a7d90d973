import XCTest
@testable import PeerCore
import PeerProtocol

/// A datagram's plaintext (docs/protocol.md §11): its kinds pinned, what
/// round-trips, and what is dropped as malformed after it opened.
final class DatagramBodyTests: XCTestCase {
    func testTheBytesArePinned() throws {
        XCTAssertEqual([DatagramBody.dataKind, DatagramBody.probeKind, DatagramBody.probeReplyKind], [0x01, 0x02, 0x03])
        var out: [UInt8] = [9, 9]
        DatagramBody.encodeData(app: .none, Array("hi".utf8), into: &out)
        XCTAssertEqual(out, [0x01, 0x00, 0x68, 0x69], "the default app: no name")
        DatagramBody.encodeData(app: try AppName("chat"), Array("hi".utf8), into: &out)
        XCTAssertEqual(out, [0x01, 0x04, 0x63, 0x68, 0x61, 0x74, 0x68, 0x69])
        XCTAssertEqual(DatagramBody.encodeProbe(1, reply: false), [0x02, 0, 0, 0, 0, 0, 0, 0, 1])
        XCTAssertEqual(DatagramBody.encodeProbe(0x0102, reply: true), [0x03, 0, 0, 0, 0, 0, 0, 1, 2])
    }

    func testTheLimitLeavesRoomForTheLongestAppName() throws {
        XCTAssertEqual(DatagramBody.maxData, 1_200)
        XCTAssertEqual(DatagramBody.maxData(for: .none), 1_200)
        let longest = try AppName("abcdefghijklmno")
        XCTAssertEqual(DatagramBody.maxData(for: longest), 1_185)
        var out: [UInt8] = []
        for app in [AppName.none, longest] {
            DatagramBody.encodeData(app: app, [UInt8](repeating: 7, count: DatagramBody.maxData(for: app)), into: &out)
            XCTAssertLessThanOrEqual(out.count, DatagramHeader.maxPayload, "\(app)")
        }
    }

    func testParseRoundTripsFromASlice() throws {
        var out: [UInt8] = []
        DatagramBody.encodeData(app: try AppName("chat"), [1, 2, 3], into: &out)
        let framed = [0xEE] + out
        XCTAssertEqual(try DatagramBody.parse(framed[1...]), .data(app: try AppName("chat"), from: 7), "the slice's own indices")
        XCTAssertEqual(Array(framed[7...]), [1, 2, 3])
        XCTAssertEqual(try DatagramBody.parse(DatagramBody.encodeProbe(7, reply: false)), .probe(7))
        XCTAssertEqual(try DatagramBody.parse(DatagramBody.encodeProbe(7, reply: true)), .probeReply(7))
        XCTAssertEqual(try DatagramBody.parse([0x01, 0x00]), .data(app: .none, from: 2), "empty data of the default app")
        let opened: [UInt8] = [0x01, 0x00, 0x68, 0x69]
        XCTAssertEqual(try opened.withUnsafeBytes { raw throws(DatagramBody.ParseError) in try DatagramBody.parse(raw) }, .data(app: .none, from: 2),
                       "read in the buffer it was opened in")
    }

    /// Each row: the body, and why it is dropped.
    func testWhatIsMalformed() {
        let rows: [([UInt8], DatagramBody.ParseError)] = [
            ([], .tooShort(0)),
            ([0x01], .tooShort(1)),
            ([0x01, 0x05, 0x61], .tooShort(3)),
            ([0x01, 0x03, 0x41, 0x42, 0x43], .badApp),
            ([0x01, 0x10] + [UInt8](repeating: 0x61, count: 16), .badApp),
            ([0x02, 0, 0, 0], .tooShort(4)),
            ([0x03, 0, 0, 0, 0, 0, 0, 0, 1, 0], .trailingBytes(1)),
            ([0x04, 0], .unknownKind(0x04)),
            ([0x00], .unknownKind(0x00)),
        ]
        for (bytes, expected) in rows {
            XCTAssertThrowsError(try DatagramBody.parse(bytes), "\(bytes)") { XCTAssertEqual($0 as? DatagramBody.ParseError, expected, "\(bytes)") }
        }
    }
}
