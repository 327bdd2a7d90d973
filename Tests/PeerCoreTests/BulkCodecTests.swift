import XCTest
@testable import PeerCore
import PeerProtocol

/// The data plane's wire messages (docs/protocol.md §8).
final class BulkCodecTests: XCTestCase {
    private let flow = FlowID(bytes: Array(0x10..<0x20))!

    func testEveryBulkMessageRoundTrips() throws {
        let hash = [UInt8](repeating: 0xAB, count: 32)
        let messages: [BulkMessage] = [
            .offer(flow, more: true, totalFiles: 3, totalBytes: 1 << 33,
                   files: [OfferedFile(name: Array("dir/a.txt".utf8), size: 5, mode: 0o644, mtime: 1_700_000_000),
                           OfferedFile(name: Array("../bad".utf8), size: 1 << 32, mode: 0o600, mtime: -5)]),
            .answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 7),
                                                FileAnswer(file: 1, verdict: .refused(.name(.dotComponent))),
                                                FileAnswer(file: 2, verdict: .declined)]),
            .chunk(flow, file: 2, offset: 1 << 40, bytes: [1, 2, 3]),
            .block(flow, file: 2, block: 9, hash: hash),
            .fileEnd(flow, file: 2, hash: hash),
            .transferDone(flow),
            .cancel(flow, reason: .noSpace, text: "disk full"),
            .credit(flow, bytes: 262_144),
            .streamOpen(flow, name: "backup"),
            .streamData(flow, bytes: [9]),
            .streamEnd(flow),
            .streamReset(flow, reason: .closed, text: "bye"),
        ]
        for message in messages {
            let bytes = WireCodec.encode(.bulk(message))
            XCTAssertEqual(bytes[1], BulkCodec.type(of: message))
            XCTAssertEqual(try WireCodec.decode(bytes), .bulk(message), "\(message)")
        }
    }

    /// The type bytes, reason codes and verdict codes are the protocol.
    func testCodesArePinned() {
        XCTAssertEqual(FlowEndReason.allCases.map(\.code), Array(1...11))
        XCTAssertEqual(FlowEndReason.allCases.map(\.rawValue), ["cancelled", "declined", "timedOut", "noSpace", "ioError", "verifyFailed",
                                                               "protocolError", "busy", "closed", "unknownName", "unsupported"])
        XCTAssertEqual(FlowEndReason(code: 200), .protocolError, "an unknown reason still ends the flow")
        let verdicts: [(FileVerdict, UInt8)] = [(.accepted, 0), (.declined, 1), (.refused(.duplicate), 2), (.refused(.underAFile), 3),
                                                (.refused(.badSize), 4), (.refused(.name(.empty)), 17), (.refused(.name(.notUTF8)), 18),
                                                (.refused(.name(.notNFC)), 19), (.refused(.name(.absolute)), 20),
                                                (.refused(.name(.emptyComponent)), 21), (.refused(.name(.dotComponent)), 22),
                                                (.refused(.name(.controlCharacter)), 23), (.refused(.name(.tooLong)), 24)]
        for (verdict, code) in verdicts {
            XCTAssertEqual(verdict.code, code, "\(verdict)")
            XCTAssertEqual(FileVerdict(code: code), verdict)
        }
        // Refusals added after 0.1.0 go out under a code a 0.1.0 sender knows.
        XCTAssertEqual(FileVerdict.refused(.name(.reservedName)).code, 22)
        XCTAssertEqual(FileVerdict.refused(.name(.invisibleCharacter)).code, 23)
        XCTAssertEqual(FileVerdict.refused(.name(.lookalikeSeparator)).code, 23)
        XCTAssertNil(FileVerdict(code: 5))
        XCTAssertEqual(BulkCodec.maxChunk, 65_489)
        XCTAssertEqual(BulkCodec.maxStreamData, 65_501)
    }

    func testMalformedBulkMessagesAreTypedErrors() {
        let head: [UInt8] = [1, 0x12] + flow.bytes
        XCTAssertEqual(decodeError([1, 0x15] + Array(flow.bytes.prefix(15))), .truncated("flow id"))
        XCTAssertEqual(decodeError(head + [0, 0, 0, 1] + [UInt8](repeating: 0, count: 8)), .truncated("chunk bytes"), "an empty chunk")
        XCTAssertEqual(decodeError([1, 0x15] + flow.bytes + [0]), .trailingBytes("message type 0x15"))
        XCTAssertEqual(decodeError([1, 0x11] + flow.bytes + [0, 0, 1, 0, 0, 0, 0, 5, 0, 0, 0, 0]), .unknownFlags("answer verdict", 5))
        XCTAssertEqual(decodeError([1, 0x10] + flow.bytes + [2]), .unknownFlags("offer flags", 2))
        XCTAssertEqual(decodeError([1, 0x10] + flow.bytes + [0, 0, 0, 0, 1] + [UInt8](repeating: 0, count: 8) + [0, 1, 0x10, 0x01]),
                       .fieldTooLong("offer name", 4097))
        XCTAssertEqual(decodeError([1, 0x1C] + flow.bytes), .unknownType(0x1C))
    }

    private func decodeError(_ bytes: [UInt8]) -> WireError? {
        do {
            _ = try WireCodec.decode(bytes)
            return nil
        } catch {
            return error
        }
    }

    /// The heads the bulk path writes in place are the codec's bytes.
    func testInPlaceHeadsMatchTheCodec() {
        let payload: [UInt8] = [7, 8, 9]
        var chunk = [UInt8](repeating: 0, count: BulkCodec.chunkHeadLength)
        chunk.withUnsafeMutableBytes { BulkCodec.writeChunkHead(flow, file: 0x0102_0304, offset: 0x1122_3344_5566_7788, into: $0) }
        XCTAssertEqual(chunk + payload, WireCodec.encode(.bulk(.chunk(flow, file: 0x0102_0304, offset: 0x1122_3344_5566_7788, bytes: payload))))
        var data = [UInt8](repeating: 0, count: BulkCodec.streamDataHeadLength)
        data.withUnsafeMutableBytes { BulkCodec.writeStreamDataHead(flow, into: $0) }
        XCTAssertEqual(data + payload, WireCodec.encode(.bulk(.streamData(flow, bytes: payload))))
    }

    func testFlowIDHex() {
        XCTAssertEqual(flow.description, "101112131415161718191a1b1c1d1e1f")
        XCTAssertEqual(FlowID(hex: "101112131415161718191A1B1C1D1E1F"), flow)
        XCTAssertNil(FlowID(hex: "10111213"))
        XCTAssertNil(FlowID(hex: "zz1112131415161718191a1b1c1d1e1f"))
    }
}
