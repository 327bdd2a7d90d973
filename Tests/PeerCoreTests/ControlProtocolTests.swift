import Foundation
@testable import PeerCore
@testable import PeerTools
import XCTest

final class ControlProtocolTests: XCTestCase {
    private func decode<T: Decodable>(_ type: T.Type, _ text: String) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(text.utf8))
    }

    /// The typed table of calls: every method has its call, each once
    /// (send has two shapes), with the result type the docs give.
    func testTheTableOfCallsHasEveryMethodEachOnce() {
        let all = ControlCalls.all
        XCTAssertEqual(Set(all.map(\.method)), Set(ControlMethod.allCases), "every method has a call")
        XCTAssertEqual(all.count, ControlMethod.allCases.count + 2, "one call a method, and second shapes of send and disconnect")
        XCTAssertEqual(all.first { $0.method == .status }?.result, "DaemonStatus")
        XCTAssertEqual(all.first { $0.method == .pipe }?.result, "StreamInfo")
        XCTAssertEqual(all.filter { $0.method == .send }.map(\.result), ["SendResult", "GroupSendResult"])
        XCTAssertEqual(all.filter { $0.method == .disconnect }.map(\.result), ["PeerResult", "InviteResult"])
        XCTAssertEqual(ControlCall.acceptTransfer.method, .acceptTransfer)
    }

    func testRequestIdsMayBeNumbersOrStrings() throws {
        let numeric = try decode(ControlRequest.self, #"{"v":1,"id":7,"method":"peer","params":{"peer":"ab"}}"#)
        XCTAssertEqual(numeric.id, .number(7))
        XCTAssertEqual(numeric.params?.peer, "ab")
        let text = try decode(ControlRequest.self, #"{"v":1,"id":"x-1","method":"subscribe","params":{"since":3}}"#)
        XCTAssertEqual(text.id, .string("x-1"))
        XCTAssertEqual(text.params?.since, 3)
        XCTAssertThrowsError(try decode(ControlRequest.self, #"{"v":1,"method":"status"}"#), "id is required")
    }

    func testResponseAndEventRoundTrip() throws {
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        encoder.outputFormatting = .sortedKeys
        let error = ControlResponse<EmptyResult>(id: .number(1), error: ControlError(.notFound, "no"))
        let errorText = String(decoding: try encoder.encode(error), as: UTF8.self)
        XCTAssertEqual(errorText, #"{"error":{"code":"notFound","message":"no"},"id":1,"v":1}"#)
        let envelope = try decode(ControlEnvelope.self, errorText)
        XCTAssertEqual(envelope.error?.code, .notFound)

        let peer = PeerSnapshot(id: UUID(), peerId: "aa", name: "n", state: .notConnected, endpoints: [],
                                info: ["k": "v"], lastSeen: Date(timeIntervalSince1970: 0), lost: false)
        let line = EventLine(ControlEvent(seq: 9, type: .peerFound, time: Date(timeIntervalSince1970: 0), peer: peer))
        let eventText = String(decoding: try encoder.encode(line), as: UTF8.self)
        XCTAssertTrue(eventText.contains(#""lastSeen":"1970-01-01T00:00:00Z""#))
        let back = try decode(ControlEnvelope.self, eventText)
        XCTAssertNil(back.id)
        XCTAssertEqual(back.event?.seq, 9)
        XCTAssertEqual(back.event?.peer, peer)
    }
}

final class PeerSelectorTests: XCTestCase {
    private func peer(_ uuid: String, _ name: String) -> PeerSnapshot {
        PeerSnapshot(id: UUID(uuidString: uuid)!, peerId: nil, name: name, state: .notConnected, endpoints: [],
                     info: [:], lastSeen: Date(), lost: false)
    }

    private lazy var peers = [
        peer("AB000000-0000-0000-0000-000000000001", "alpha"),
        peer("AB100000-0000-0000-0000-000000000002", "Beta"),
        peer("CD000000-0000-0000-0000-000000000003", "twin"),
        peer("EF000000-0000-0000-0000-000000000004", "twin"),
    ]

    func testSelectsByUUIDPrefixAndName() throws {
        XCTAssertEqual(try PeerSelector.select("ab000000-0000-0000-0000-000000000001", from: peers).get().name, "alpha")
        XCTAssertEqual(try PeerSelector.select("ab1", from: peers).get().name, "Beta")
        XCTAssertEqual(try PeerSelector.select("beta", from: peers).get().name, "Beta")
        XCTAssertEqual(try PeerSelector.select(" alpha ", from: peers).get().name, "alpha")
    }

    func testAmbiguityAndAbsenceAreTypedErrors() {
        guard case .failure(let prefix) = PeerSelector.select("ab", from: peers) else { return XCTFail() }
        XCTAssertEqual(prefix.code, .ambiguous)
        guard case .failure(let name) = PeerSelector.select("twin", from: peers) else { return XCTFail() }
        XCTAssertEqual(name.code, .ambiguous)
        guard case .failure(let none) = PeerSelector.select("zz", from: peers) else { return XCTFail() }
        XCTAssertEqual(none.code, .notFound)
        guard case .failure(let empty) = PeerSelector.select("  ", from: peers) else { return XCTFail() }
        XCTAssertEqual(empty.code, .invalidParams)
        // The message names each match, the count and the step.
        XCTAssertEqual(name.message, "'twin' matches 2 peers by name: cd000000-0000-0000-0000-000000000003 (twin), ef000000-0000-0000-0000-000000000004 (twin); give more of the UUID")
        XCTAssertEqual(prefix.message, "'ab' matches 2 peers by UUID prefix: ab000000-0000-0000-0000-000000000001 (alpha), ab100000-0000-0000-0000-000000000002 (Beta); give more of the UUID")
        XCTAssertEqual(none.message, "no peer matches 'zz'")
        // An exact name wins over a case-insensitive one.
        let cased = peers + [peer("11000000-0000-0000-0000-000000000005", "beta")]
        XCTAssertEqual(try PeerSelector.select("beta", from: cased).get().id.uuidString, "11000000-0000-0000-0000-000000000005")
        guard case .failure(let folded) = PeerSelector.select("BETA", from: cased) else { return XCTFail() }
        XCTAssertEqual(folded.code, .ambiguous)
    }
}

final class TextTableTests: XCTestCase {
    func testColumnsAlignWithoutTrailingSpaces() {
        var table = TextTable(header: ["ID", "NAME"])
        table.rows = [["1", "alpha"], ["22", "b"]]
        XCTAssertEqual(table.render(), "ID  NAME\n1   alpha\n22  b\n")
    }

    func testLogLinesCarryPriorityAndStayOneLine() {
        XCTAssertEqual(LogLevel.info.format("a\nb"), "<6>a b\n")
        XCTAssertEqual(LogLevel.error.format("x"), "<3>x\n")
        XCTAssertEqual(LogLevel(name: "WARNING"), .warning)
    }
}
