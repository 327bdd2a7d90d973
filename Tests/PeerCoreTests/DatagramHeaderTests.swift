import XCTest
@testable import PeerCore

/// The datagram header's bytes (issue 26): pinned, so a reordering or a
/// new field never changes the wire.
final class DatagramHeaderTests: XCTestCase {
    func testTheBytesArePinned() {
        let header = DatagramHeader(receiverIndex: 0x0A0B_0C0D, counter: 0x0102_0304_0506_0708)
        XCTAssertEqual(header.encoded, [0x01, 0x0A, 0x0B, 0x0C, 0x0D, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08])
        XCTAssertEqual(header.nonce, [0, 0, 0, 0, 0x08, 0x07, 0x06, 0x05, 0x04, 0x03, 0x02, 0x01])
        XCTAssertEqual(DatagramHeader.length, 13)
        XCTAssertEqual(DatagramHeader.dataKind, 0x01)
        XCTAssertEqual(DatagramHeader.maxPayload, 1_203)
        var written = [UInt8](repeating: 0xEE, count: 14)
        written.withUnsafeMutableBytes { header.write(into: $0) }
        XCTAssertEqual(Array(written[0..<13]), header.encoded, "write and encoded agree")
        XCTAssertEqual(written[13], 0xEE, "nothing past the header")
    }

    func testParseRoundTripsAndReadsFromASlice() throws {
        let header = DatagramHeader(receiverIndex: 7, counter: 1 << 40)
        let datagram = header.encoded + [UInt8](repeating: 0xEE, count: 16 + 5)
        XCTAssertEqual(try DatagramHeader.parse(datagram), header)
        let framed = [0xFF, 0xFF] + datagram
        XCTAssertEqual(try DatagramHeader.parse(framed[2...]), header, "a slice's own indices")
    }

    /// Each row: the datagram's length and first byte, and what parsing says.
    func testWhatIsDroppedBeforeAnyCrypto() {
        let rows: [(Int, UInt8, DatagramHeader.ParseError?)] = [
            (0, 0x01, .tooShort(0)),
            (28, 0x01, .tooShort(28)),
            (29, 0x01, nil),
            (13 + 1_203 + 16, 0x01, nil),
            (13 + 1_204 + 16, 0x01, .tooLong(1_233)),
            (65_507, 0x01, .tooLong(65_507)),
            (29, 0x00, .unknownKind(0x00)),
            (29, 0x02, .unknownKind(0x02)),
        ]
        for (length, kind, expected) in rows {
            var bytes = [UInt8](repeating: 0, count: length)
            if length > 0 { bytes[0] = kind }
            do {
                _ = try DatagramHeader.parse(bytes)
                XCTAssertNil(expected, "length \(length), kind \(kind)")
            } catch {
                XCTAssertEqual(error, expected, "length \(length), kind \(kind)")
            }
        }
    }
}
