import XCTest
@testable import PeerCore

/// A message channel's framing (docs/control-protocol.md, "Message
/// channels"): a 4-byte big-endian length, then the message.
final class ChannelFramingTests: XCTestCase {
    private func scan(_ bytes: [UInt8], max: Int = 1000) throws -> ChannelFraming.Scan {
        try bytes.withUnsafeBytes { raw in try ChannelFraming.scan(raw, maxMessage: max) }
    }

    func testThePrefixIsFourBytesBigEndian() {
        var out: [UInt8] = []
        ChannelFraming.appendPrefix(0x0102_0304, to: &out)
        XCTAssertEqual(out, [1, 2, 3, 4])
        out += [9, 9]
        XCTAssertEqual(out.withUnsafeBytes { ChannelFraming.messageLength(prefix: $0) }, 0x0102_0304,
                       "the length reads back from the first four bytes, whatever follows")
    }

    /// Each row: the bytes, and what the scan finds.
    func testScanTable() throws {
        let rows: [(String, [UInt8], ChannelFraming.Scan)] = [
            ("nothing", [], .needMore(nil)),
            ("a part of the prefix", [0, 0, 0], .needMore(nil)),
            ("a prefix alone: the frame's size is known", [0, 0, 0, 3], .needMore(7)),
            ("a whole message", [0, 0, 0, 3, 7, 8, 9], .frame(4..<7)),
            ("a whole message and the start of the next", [0, 0, 0, 1, 7, 0, 0], .frame(4..<5)),
            ("a message of the largest size", [0, 0, 3, 0xE8] + [UInt8](repeating: 1, count: 1000), .frame(4..<1004)),
        ]
        for (what, bytes, expected) in rows { XCTAssertEqual(try scan(bytes), expected, what) }
    }

    func testEmptyAndOversizedMessagesAreRefused() {
        XCTAssertThrowsError(try scan([0, 0, 0, 0])) { XCTAssertEqual($0 as? ChannelFramingError, .emptyMessage) }
        XCTAssertThrowsError(try scan([0, 0, 3, 0xE9])) { XCTAssertEqual($0 as? ChannelFramingError, .tooLarge(1001, max: 1000)) }
        XCTAssertThrowsError(try scan([0xFF, 0xFF, 0xFF, 0xFF])) { XCTAssertEqual($0 as? ChannelFramingError, .tooLarge(4_294_967_295, max: 1000)) }
        XCTAssertTrue(ChannelFramingError.tooLarge(1001, max: 1000).description.contains("--max-message"))
    }
}
