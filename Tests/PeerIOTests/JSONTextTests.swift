import Foundation
@testable import PeerProtocol
import PeerSystem
import XCTest

/// The hand-written JSON path (``JSONTextWriter``) against `JSONEncoder`
/// with the control protocol's settings: the same bytes for every value it
/// takes, so a client cannot tell which path wrote a line.
final class JSONTextTests: XCTestCase {
    private func assertSame<T: Encodable>(_ value: T, file: StaticString = #filePath, line: UInt = #line) throws {
        let fast = try XCTUnwrap(value as? any JSONTextEncodable, "has a hand-written path", file: file, line: line)
        var writer = JSONTextWriter()
        XCTAssertTrue(fast.writeJSONText(to: &writer), "takes the hand-written path", file: file, line: line)
        writer.newline()
        let reference = try JSONLines.encodeWithFoundation(value)
        XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), String(decoding: reference, as: UTF8.self), file: file, line: line)
        XCTAssertEqual(try JSONLines.encode(value), reference, file: file, line: line)
    }

    /// Every byte below 0x80 alone and amid text, and non-ASCII text
    /// (U+2028 and U+2029 included, which some encoders escape).
    private var awkwardStrings: [String] {
        var strings = (0..<0x80).map { String(UnicodeScalar(UInt8($0))) }
        strings += ["", "plain", "a/b\\c\"d", "tab\there\nnew\r\u{0}\u{1F}\u{7F}", "héllo ✓ 日本 🎉", "\u{2028}\u{2029}", "</script>", "ends with \\"]
        return strings
    }

    private let dates: [Date] = [
        Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: 0.999), Date(timeIntervalSince1970: 1_796_242_336.5),
        Date(timeIntervalSince1970: 1_796_242_336.999_999), Date(timeIntervalSince1970: 951_782_400), // 2000-02-29
        Date(timeIntervalSince1970: 4_107_542_399), // 2100-02-28T23:59:59
        Date(timeIntervalSince1970: 4_107_542_400), Date(timeIntervalSince1970: 253_402_300_799), // 9999-12-31T23:59:59
        Date(timeIntervalSince1970: -1), Date(timeIntervalSince1970: 253_402_300_800), Date(),
    ]

    func testMessageEventsMatchJSONEncoder() throws {
        let from = UUID(uuidString: "e621e1f8-c36c-495a-93fc-0c247a3e6e5f")
        for text in awkwardStrings {
            for time in dates {
                let message = MessageInfo(from: from, peerId: text, data: Data(text.utf8).base64EncodedString(), size: text.utf8.count,
                                          inbox: 7, received: time, app: text)
                try assertSame(EventLine(ControlEvent(seq: 1, type: .message, time: time, message: message)))
            }
        }
        for _ in 0..<500 {
            try assertSame(EventLine(ControlEvent(seq: 3, type: .message, time: Date(), message: MessageInfo(from: UUID(), data: "AQ==", size: 1))))
        }
        try assertSame(EventLine(ControlEvent(seq: .max, type: .message, time: Date(), message: MessageInfo(from: nil, data: "", size: 0))))
        try assertSame(EventLine(ControlEvent(seq: 0, type: .message, time: Date(), message: MessageInfo(from: from, data: "AA==", size: Int.max))))
    }

    func testDeliveryEventsAndDetailMatchJSONEncoder() throws {
        for text in awkwardStrings {
            try assertSame(EventLine(ControlEvent(seq: 9, type: .delivered, time: Date(), delivery: DeliveryInfo(session: 3, through: .max))))
            try assertSame(EventLine(ControlEvent(seq: 9, type: .undelivered, time: Date(), delivery: DeliveryInfo(session: -1, refusedFrom: 5, app: text, text: text),
                                                  detail: text)))
        }
    }

    func testSendAndTakeResultsMatchJSONEncoder() throws {
        for id in [RequestID.number(0), .number(-42), .number(.max), .number(.min), .string("x\"\\/\u{1}é")] {
            try assertSame(ControlResponse(id: id, result: SendResult(bytes: 100)))
            try assertSame(ControlResponse(id: id, result: SendResult(bytes: 0, queued: true, session: 4, number: .max)))
            let messages = [MessageInfo(from: UUID(), data: "AQID", size: 3), MessageInfo(from: nil, peerId: "p", data: "", size: 0, inbox: 2, received: Date(), app: "chat")]
            try assertSame(ControlResponse(id: id, result: TakeResult(messages: messages, remaining: 12)))
            try assertSame(ControlResponse(id: id, result: TakeResult(messages: [], remaining: 0)))
        }
        try assertSame(ControlResponse(id: nil, result: SendResult(bytes: 1)))
    }

    /// What the hand-written path does not cover goes to `JSONEncoder`,
    /// and `JSONLines.encode` still writes the same line.
    func testOtherShapesFallBackToJSONEncoder() throws {
        let error = ControlResponse<SendResult>(id: .number(1), error: ControlError(.notFound, "no peer matches 'x'"))
        var writer = JSONTextWriter()
        XCTAssertFalse(error.writeJSONText(to: &writer))
        XCTAssertEqual(try JSONLines.encode(error), try JSONLines.encodeWithFoundation(error))
        let lost = EventLine(ControlEvent(seq: 2, type: .stateChanged, time: Date(), reason: .declined))
        writer = JSONTextWriter()
        XCTAssertFalse(lost.writeJSONText(to: &writer))
        XCTAssertEqual(try JSONLines.encode(lost), try JSONLines.encodeWithFoundation(lost))
    }

    /// The calendar arithmetic against Foundation's over a wide spread of
    /// moments: every day boundary of four leap cycles, and random ones.
    func testCivilTimeAgreesWithTheISO8601Formatter() throws {
        var moments = (0..<(4 * 1461)).map { Double($0) * 86_400 + 86_399.75 }
        var generator = SystemRandomNumberGenerator()
        moments += (0..<2000).map { _ in Double.random(in: 0..<253_402_300_800, using: &generator) }
        for seconds in moments {
            var writer = JSONTextWriter()
            writer.date(Date(timeIntervalSince1970: seconds))
            let expected = "\"" + Date(timeIntervalSince1970: seconds).formatted(.iso8601) + "\""
            XCTAssertEqual(String(decoding: writer.bytes, as: UTF8.self), expected, "at \(seconds)")
            let civil = try XCTUnwrap(CivilTime(seconds))
            XCTAssertEqual(civil.secondsSince1970, Int(seconds.rounded(.down)), "back to seconds at \(seconds)")
            XCTAssertEqual(CivilTime(year: civil.year, month: civil.month, day: civil.day, hour: civil.hour, minute: civil.minute, second: civil.second), civil)
        }
        XCTAssertNil(CivilTime(year: 2026, month: 2, day: 29, hour: 0, minute: 0, second: 0), "not a leap year")
        XCTAssertNotNil(CivilTime(year: 2000, month: 2, day: 29, hour: 0, minute: 0, second: 0), "a leap year")
        XCTAssertNil(CivilTime(year: 2100, month: 2, day: 29, hour: 0, minute: 0, second: 0), "a century, not a leap year")
        XCTAssertNil(CivilTime(year: 2026, month: 1, day: 1, hour: 24, minute: 0, second: 0))
        XCTAssertNil(CivilTime(-1))
        XCTAssertNil(CivilTime(253_402_300_800))
    }
}
