import XCTest
@testable import PeerCore
import PeerProtocol

final class WireCodecTests: XCTestCase {
    func testRoundTripsEveryMessage() throws {
        let messages: [WireMessage] = [
            .invite(name: "alpha", context: Array("hello".utf8), timeoutMilliseconds: 30_000),
            .invite(name: "", context: [], timeoutMilliseconds: 0, pairing: true),
            .accept(), .accept(name: "bravo"),
            .decline(reason: .declined, text: "no thanks"),
            .data(more: true, bytes: [1, 2, 3]),
            .data(more: false, bytes: []),
            .ping(42), .pong(UInt64.max),
            .close(reason: .keepaliveLost, text: ""),
            .feature(type: 0x30, body: []), .feature(type: 0xFF, body: [1, 2, 3]),
            .queued(QueueTag(epoch: 1, seq: 1)), .queued(QueueTag(epoch: .max, seq: .max)),
        ]
        for message in messages {
            XCTAssertEqual(try WireCodec.decode(WireCodec.encode(message)), message)
        }
    }

    func testWorkedExampleBytes() {
        // docs/protocol.md shows these bytes.
        XCTAssertEqual(WireCodec.encode(.invite(name: "a", context: Array("hi".utf8), timeoutMilliseconds: 30_000)),
                       [0x01, 0x01, 0x00, 0x00, 0x75, 0x30, 0x00, 0x01, 0x61, 0x00, 0x02, 0x68, 0x69])
        XCTAssertEqual(WireCodec.encode(.invite(name: "", context: [], timeoutMilliseconds: 1, pairing: true)),
                       [0x01, 0x01, 0x00, 0x00, 0x00, 0x01, 0x01, 0x00, 0x00, 0x00])
        XCTAssertEqual(WireCodec.encode(.data(more: false, bytes: Array("hi".utf8))), [0x01, 0x04, 0x00, 0x68, 0x69])
        XCTAssertEqual(WireCodec.encode(.close(reason: .closedLocally, text: "")), [0x01, 0x07, 0x06, 0x00, 0x00])
        XCTAssertEqual(WireCodec.frame([0xAA, 0xBB]), [0x00, 0x02, 0xAA, 0xBB])
        // accept: no body (no name), or the name with its length.
        XCTAssertEqual(WireCodec.encode(.accept()), [0x01, 0x02])
        XCTAssertEqual(WireCodec.encode(.accept(name: "b")), [0x01, 0x02, 0x01, 0x62])
        XCTAssertEqual(try WireCodec.decode([0x01, 0x02]), .accept(name: ""), "an accept from an older peer")
        // A feature's message (protocol.md §9): its type and body as they are.
        XCTAssertEqual(WireCodec.encode(.feature(type: 0x31, body: [0x04, 0x63])), [0x01, 0x31, 0x04, 0x63])
        XCTAssertEqual(WireCodec.firstFeatureType, 0x30)
        // queued (protocol.md §5, "Exactly once"): epoch u64, seq u64.
        XCTAssertEqual(WireCodec.encode(.queued(QueueTag(epoch: 0x0102_0304_0506_0708, seq: 9))),
                       [0x01, 0x32, 1, 2, 3, 4, 5, 6, 7, 8, 0, 0, 0, 0, 0, 0, 0, 9])
        XCTAssertEqual(WireCodec.queuedType, 0x32)
    }

    func testMalformedInputIsATypedError() {
        let cases: [([UInt8], WireError)] = [
            ([], .truncated("version")),
            ([2, 2], .unsupportedVersion(2)),
            ([1, 0x05, 0, 0], .truncated("ping")),
            ([1, 0x02, 1, 0x61, 0], .trailingBytes("message type 0x2")),
            ([1, 0x02, 3, 0x61], .truncated("accept name")),
            ([1, 0x01, 0, 0, 0, 1, 0, 5, 0x61], .truncated("invite name")),
            ([1, 0x01, 0, 0, 0, 1, 0, 0, 0x10, 0x01], .fieldTooLong("invite context", 4097)),
            ([1, 0x01, 0, 0, 0, 1, 4, 0, 0, 0], .unknownFlags("invite flags", 4)),
            ([1, 0x01, 0, 0, 0, 1, 2, 0, 0, 0], .truncated("invite app length")),
            ([1, 0x01, 0, 0, 0, 1, 2, 0, 0, 0, 0], .fieldTooLong("invite app", 0)),
            ([1, 0x07, 1, 0, 2, 0xFF, 0xFE], .invalidText("close text")),
            ([1, 0x04, 2], .unknownFlags("data flags", 2)),
            ([1, 0x2F], .unknownType(0x2F)),
            ([1, 0x32, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0], .truncated("queued seq")),
        ]
        for (bytes, expected) in cases {
            XCTAssertThrowsError(try WireCodec.decode(bytes), "\(bytes)") { XCTAssertEqual($0 as? WireError, expected, "\(bytes)") }
        }
    }

    /// Types from 0x30 up, but the core's 0x32, are the features': the
    /// codec hands them on whole, and the session's features own them.
    func testTypesFrom0x30AreFeatureMessages() throws {
        XCTAssertEqual(try WireCodec.decode([1, 0x30, 0, 0, 0, 1, 0]), .feature(type: 0x30, body: [0, 0, 0, 1, 0]))
        XCTAssertEqual(try WireCodec.decode([1, 0x99]), .feature(type: 0x99, body: []))
        XCTAssertEqual(try WireCodec.decode([1, 0x32, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 2]), .queued(QueueTag(epoch: 1, seq: 2)))
    }

    func testFragmentsFitNoiseAndReassemble() {
        let data = (0..<200_000).map { UInt8($0 & 0xFF) }
        let fragments = WireCodec.fragments(of: data)
        XCTAssertEqual(fragments.count, 4)
        var assembler = MessageAssembler(maxMessage: 1 << 20)
        var result: MessageAssembler.Outcome = .incomplete
        for fragment in fragments {
            let encoded = WireCodec.encode(fragment)
            XCTAssertLessThanOrEqual(encoded.count + 16, WireCodec.maxNoiseMessage)
            guard case .data(let more, let bytes) = fragment else { return XCTFail() }
            result = assembler.add(more: more, bytes: bytes)
        }
        XCTAssertEqual(result, .message(data, app: 0))
    }

    func testOversizedMessageIsRefused() {
        var assembler = MessageAssembler(maxMessage: 10)
        XCTAssertEqual(assembler.add(more: true, bytes: Array(repeating: 0, count: 8)), .incomplete)
        XCTAssertEqual(assembler.add(more: true, bytes: Array(repeating: 0, count: 8)), .tooLarge(16))
        XCTAssertEqual(assembler.add(more: false, bytes: [1]), .message([1], app: 0), "the assembler starts over")
    }

    func testFrameReaderSplitsAndRejectsZeroLength() throws {
        var reader = FrameReader()
        XCTAssertEqual(try reader.append([0, 3, 1, 2]), [])
        XCTAssertEqual(try reader.append([3, 0, 1, 9, 0]), [[1, 2, 3], [9]])
        XCTAssertEqual(reader.pendingCount, 1)
        var bad = FrameReader()
        XCTAssertThrowsError(try bad.append([0, 0])) { XCTAssertEqual($0 as? WireError, .badFrameLength(0)) }
        var small = FrameReader()
        small.maxFrame = 8192
        XCTAssertEqual(try small.append([0x20, 0x00]), [], "8192 is allowed")
        var tooBig = FrameReader()
        tooBig.maxFrame = 8192
        XCTAssertThrowsError(try tooBig.append([0x20, 0x01])) { XCTAssertEqual($0 as? WireError, .badFrameLength(8193)) }
    }

    func testABadLengthAfterWholeFramesComesAfterThem() throws {
        var reader = FrameReader()
        XCTAssertEqual(try reader.append([0, 2, 7, 7, 0, 1, 8, 0, 0, 0, 1]), [[7, 7], [8]], "the frames before the bad length first")
        XCTAssertThrowsError(try reader.append([UInt8]())) { XCTAssertEqual($0 as? WireError, .badFrameLength(0)) }
        XCTAssertThrowsError(try reader.append([0, 1, 5])) { XCTAssertEqual($0 as? WireError, .badFrameLength(0)) }
    }

    func testFramedSizeCountsEveryFragmentsOverhead() {
        XCTAssertEqual(WireCodec.framedSize(ofMessage: 0), 21)
        XCTAssertEqual(WireCodec.framedSize(ofMessage: WireCodec.maxFragment), WireCodec.maxFragment + 21)
        XCTAssertEqual(WireCodec.framedSize(ofMessage: WireCodec.maxFragment + 1), WireCodec.maxFragment + 1 + 42)
        let message = [UInt8](repeating: 7, count: 200_000)
        let wire = WireCodec.fragments(of: message).reduce(0) { $0 + 2 + 16 + WireCodec.encode($1).count }
        XCTAssertEqual(WireCodec.framedSize(ofMessage: message.count), wire)
    }

    func testUnknownFlagBitsAreNamedAsSuch() {
        var invite = WireCodec.encode(.invite(name: "a", context: [], timeoutMilliseconds: 1000))
        invite[6] = 0x04
        XCTAssertThrowsError(try WireCodec.decode(invite)) { error in
            XCTAssertEqual(error as? WireError, .unknownFlags("invite flags", 4))
            XCTAssertEqual("\(error)", "invite flags 0x4 has bits this version does not define")
        }
        XCTAssertThrowsError(try WireCodec.decode([1, 4, 0x80])) { XCTAssertEqual($0 as? WireError, .unknownFlags("data flags", 0x80)) }
    }

    /// The wire codes are the protocol (docs/protocol.md): pinned here, so
    /// reordering the cases can never change them.
    func testCloseReasonCodesArePinned() {
        let pinned: [CloseReason: UInt8] = [.declined: 1, .timedOut: 2, .handshakeFailed: 3, .identityMismatch: 4, .closedByPeer: 5,
                                            .closedLocally: 6, .keepaliveLost: 7, .tooLarge: 8, .protocolError: 9, .duplicate: 10, .busy: 11]
        XCTAssertEqual(pinned.count, CloseReason.allCases.count)
        for (reason, code) in pinned { XCTAssertEqual(reason.code, code, "\(reason)") }
    }

    func testCloseReasonCodesRoundTrip() {
        for reason in CloseReason.allCases { XCTAssertEqual(CloseReason(code: reason.code), reason) }
        XCTAssertEqual(CloseReason(code: 200), .protocolError)
    }
}
