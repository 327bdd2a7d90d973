import XCTest
@testable import PeerCore
import PeerProtocol

/// The in-place head reader of the receive path (issue 12, point 8): it
/// must read exactly what ``WireCodec`` decodes for `chunk` and
/// `streamData`, and leave everything else to the codec.
final class BulkDataHeadTests: XCTestCase {
    private let flow = FlowID(bytes: Array(1...16))!

    private func parse(_ bytes: [UInt8]) -> (head: BulkDataHead, dataStart: Int)? {
        bytes.withUnsafeBytes { BulkDataHead.parse($0) }
    }

    func testChunkAndStreamDataAreReadWhereTheyLie() throws {
        let chunk = WireCodec.encode(.bulk(.chunk(flow, file: 0x0102_0304, offset: 0x1122_3344_5566_7788, bytes: [9, 8, 7])))
        let read = try XCTUnwrap(parse(chunk))
        XCTAssertEqual(read.head, .chunk(flow, file: 0x0102_0304, offset: 0x1122_3344_5566_7788))
        XCTAssertEqual(read.dataStart, BulkCodec.chunkHeadLength)
        XCTAssertEqual(Array(chunk[read.dataStart...]), [9, 8, 7])

        let data = WireCodec.encode(.bulk(.streamData(flow, bytes: [5])))
        let stream = try XCTUnwrap(parse(data))
        XCTAssertEqual(stream.head, .streamData(flow))
        XCTAssertEqual(Array(data[stream.dataStart...]), [5])
    }

    /// Each row: bytes the head reader must leave to the codec.
    func testEverythingElseIsLeftToTheCodec() {
        let chunkHead = Array(WireCodec.encode(.bulk(.chunk(flow, file: 1, offset: 2, bytes: [1]))).dropLast())
        let rows: [(String, [UInt8])] = [
            ("empty", []),
            ("a chunk with no bytes", chunkHead),
            ("a streamData with no bytes", Array(WireCodec.encode(.bulk(.streamData(flow, bytes: [1]))).dropLast())),
            ("another version", [2] + WireCodec.encode(.bulk(.chunk(flow, file: 1, offset: 2, bytes: [1]))).dropFirst()),
            ("a block", WireCodec.encode(.bulk(.block(flow, file: 0, block: 0, hash: [UInt8](repeating: 1, count: 32))))),
            ("a credit", WireCodec.encode(.bulk(.credit(flow, bytes: 7)))),
            ("a short head", Array(chunkHead.prefix(20))),
        ]
        for (what, bytes) in rows { XCTAssertNil(parse(bytes), what) }
    }

    func testFramesAreFoundInPlaceAndBadLengthsRefused() throws {
        func next(_ bytes: [UInt8], max: Int = 65535) throws -> Range<Int>? {
            try bytes.withUnsafeBytes { raw in try FrameReader.nextFrame(in: raw, maxFrame: max) }
        }
        XCTAssertEqual(try next([0, 3, 1, 2, 3, 0, 1]), 2..<5)
        XCTAssertNil(try next([0, 3, 1, 2]), "not whole yet")
        XCTAssertNil(try next([0]))
        XCTAssertThrowsError(try next([0, 0])) { XCTAssertEqual($0 as? WireError, .badFrameLength(0)) }
        XCTAssertThrowsError(try next([0x20, 0x01], max: 8192)) { XCTAssertEqual($0 as? WireError, .badFrameLength(8193)) }
    }
}
