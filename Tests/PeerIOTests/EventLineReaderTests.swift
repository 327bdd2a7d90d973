import Foundation
@testable import PeerProtocol
import PeerSystem
import XCTest

/// ``EventLineReader`` against `JSONDecoder`: whatever event line it reads,
/// it reads as `JSONDecoder` does.
final class EventLineReaderTests: XCTestCase {
    private func full(_ line: [UInt8]) -> ControlEnvelope? {
        try? JSONLines.decodeWithFoundation(ControlEnvelope.self, from: line)
    }

    private func same(_ a: ControlEnvelope?, _ b: ControlEnvelope?) -> Bool {
        a?.v == b?.v && a?.id == b?.id && a?.error == nil && b?.error == nil && a?.event == b?.event
    }

    private var events: [ControlEvent] {
        let now = Date(timeIntervalSince1970: 1_796_242_336)
        return [
            ControlEvent(seq: 1, type: .message, time: now, message: MessageInfo(from: UUID(), data: "AQID", size: 3)),
            ControlEvent(seq: .max, type: .message, time: Date(timeIntervalSince1970: 0),
                         message: MessageInfo(from: nil, peerId: "héllo ✓", data: "", size: 0, inbox: 9, received: Date(timeIntervalSince1970: 951_782_400), app: "chat")),
            ControlEvent(seq: 5, type: .delivered, time: now, delivery: DeliveryInfo(session: 2, through: 40)),
            ControlEvent(seq: 6, type: .undelivered, time: now, delivery: DeliveryInfo(session: -3, refusedFrom: 7, app: "a", text: "full"), detail: "the inbox is full"),
        ]
    }

    /// Lines as the daemon writes them read back to the same event.
    func testTheDaemonsLinesReadBack() throws {
        for event in events {
            let line = try JSONLines.encode(EventLine(event)).dropLast()
            let fast = try XCTUnwrap(EventLineReader.read(Array(line)), String(decoding: line, as: UTF8.self))
            XCTAssertEqual(fast.event, event)
            XCTAssertEqual(fast.v, 1)
            XCTAssertTrue(same(fast, full(Array(line))))
            XCTAssertNotNil(ControlEnvelope.readJSONText(Array(line)), "JSONLines.decode takes the reader for envelopes")
            XCTAssertEqual(try JSONLines.decode(ControlEnvelope.self, from: line).event, event)
        }
    }

    func testOtherLinesAreLeftToJSONDecoder() {
        let others = [
            #"{"v":1,"id":1,"result":{}}"#,                                                          // a response
            #"{"event":{"seq":1,"time":"2026-12-02T20:09:36Z","type":"peerLost","peer":{}},"v":1}"#,  // a member not covered
            #"{"event":{"seq":1,"time":"2026-12-02T20:09:36.5Z","type":"message"},"v":1}"#,          // another date form
            #"{"event":{"seq":1,"time":"2026-02-30T20:09:36Z","type":"message"},"v":1}"#,            // no such day
            #"{"event":{"seq":1,"time":"2026-12-02T20:09:36Z","type":"noSuchKind"},"v":1}"#,          // an unknown kind
            #"{"event":{"seq":1,"type":"message"},"v":1}"#,                                           // no time
            #"{"event":{"seq":1,"time":"2026-12-02T20:09:36Z","type":"message","message":{"data":"a\/b","size":1}},"v":1}"#,
        ]
        for text in others { XCTAssertNil(EventLineReader.read(Array(text.utf8)), text) }
    }

    /// Every one-byte change of the daemon's lines: read the same or not at all.
    func testMutationsNeverReadDifferently() throws {
        let replacements = Array(#"{}[]":,\ 0-19.eAfTZn"#.utf8) + [0x00, 0xC3]
        var covered = 0
        for event in events {
            let line = Array(try JSONLines.encode(EventLine(event)).dropLast())
            for i in line.indices {
                var dropped = line
                dropped.remove(at: i)
                if let fast = EventLineReader.read(dropped) { XCTAssertTrue(same(fast, full(dropped)), String(decoding: dropped, as: UTF8.self)) }
                for byte in replacements {
                    var changed = line
                    changed[i] = byte
                    guard let fast = EventLineReader.read(changed) else { continue }
                    covered += 1
                    XCTAssertTrue(same(fast, full(changed)), String(decoding: changed, as: UTF8.self))
                }
            }
        }
        XCTAssertGreaterThan(covered, 100, "some mutations stay covered")
    }

    /// Dates the reader takes are the dates `JSONDecoder` makes of them.
    func testDatesAgreeWithJSONDecoder() {
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<2000 {
            let seconds = Double(UInt64.random(in: 0..<253_402_300_800, using: &generator))
            let text = Date(timeIntervalSince1970: seconds).formatted(.iso8601)
            let line = Array(#"{"event":{"seq":1,"time":"\#(text)","type":"message"},"v":1}"#.utf8)
            let fast = EventLineReader.read(line)
            XCTAssertEqual(fast?.event?.time, Date(timeIntervalSince1970: seconds), text)
            XCTAssertTrue(same(fast, full(line)), text)
        }
    }
}
