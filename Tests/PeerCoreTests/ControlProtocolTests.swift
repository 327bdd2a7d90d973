import Foundation
@testable import PeerCore
@testable import PeerTools
import XCTest
import PeerProtocol

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

    /// The one-pass way decides only a full UUID or a unique exact name,
    /// and then always as `select` does; every other selector is left to
    /// `select` (nil).
    func testTheDirectWayAgreesWithSelectOrStaysOut() {
        // A row named like another row's UUID: the UUID wins.
        let named = peer("22000000-0000-0000-0000-000000000006", "ab000000-0000-0000-0000-000000000001")
        let cased = peer("11000000-0000-0000-0000-000000000005", "beta")
        let sets = [peers, peers + [cased], peers + [named], [], [peers[0]]]
        let table: [(query: String, decided: [Bool])] = [
            // query, then whether `direct` decides it in each set above
            ("alpha", [true, true, true, false, true]),
            ("Beta", [true, true, true, false, false]),
            ("beta", [false, true, false, false, false]),   // case-folded in set 1: select's later step
            ("twin", [false, false, false, false, false]),  // ambiguous
            ("ab000000-0000-0000-0000-000000000001", [true, true, true, false, true]),
            ("AB000000-0000-0000-0000-000000000001", [true, true, true, false, true]),
            ("ef000000-0000-0000-0000-000000000004", [true, true, true, false, false]),
            ("ab1", [false, false, false, false, false]),   // prefix
            (" alpha", [false, false, false, false, false]), // padded
            ("alpha\n", [false, false, false, false, false]),
            ("\u{00A0}alpha", [false, false, false, false, false]),
            ("zz", [false, false, false, false, false]),
            ("", [false, false, false, false, false]),
        ]
        for (query, decided) in table {
            for (index, rows) in sets.enumerated() {
                let direct = PeerSelector.direct(query, among: rows.map(\.id), name: { id in rows.first { $0.id == id }?.name })
                XCTAssertEqual(direct != nil, decided[index], "'\(query)' in set \(index)")
                if let direct {
                    XCTAssertEqual(direct, try? PeerSelector.select(query, from: rows).get().id, "'\(query)' in set \(index)")
                }
            }
        }
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
