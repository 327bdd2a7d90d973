import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

final class InvitationPolicyTests: XCTestCase {
    typealias Facts = InvitationPolicy.Facts

    func testTable() {
        let rows: [(String, Facts, InvitationPolicy.Decision)] = [
            ("a client decides", Facts(), .ask),
            ("crossing: we asked too", Facts(wanted: true, subscribers: 0), .accept),
            ("auto-accept covers it", Facts(policyAccepts: true, subscribers: 0), .accept),
            ("auto-accept never covers pairing; pairing is accepted", Facts(policyAccepts: true, pairing: true), .accept),
            ("an unpaired peer over the rate", Facts(rateAllows: false), .decline("too many invitations; try again later")),
            ("an unpaired peer over the rate, to pair", Facts(pairing: true, rateAllows: false), .decline("too many invitations; try again later")),
            ("a paired peer is not rate-limited", Facts(paired: true, rateAllows: false), .ask),
            ("pairing with nobody subscribed", Facts(pairing: true, subscribers: 0), .accept),
            ("nobody to ask", Facts(subscribers: 0), .decline("no client is subscribed on the invitee to decide")),
        ]
        for (name, facts, expected) in rows { XCTAssertEqual(InvitationPolicy.decide(facts), expected, name) }
    }

    func testBookMatchesUniquePrefixes() {
        var book = InvitationBook()
        let peer = UUID()
        for (id, seconds) in [("ab12", 30.0), ("ab34", 10.0), ("cd56", 20.0)] {
            book.add(InvitationInfo(id: id, peer: peer, name: "n", peerId: "", context: "", expires: Date(timeIntervalSince1970: seconds)))
        }
        XCTAssertEqual(book.all.map(\.id), ["ab34", "cd56", "ab12"], "soonest to expire first")
        XCTAssertEqual(try book.match("CD").get().id, "cd56")
        XCTAssertEqual(book.match("ab").failureCode, .ambiguous)
        XCTAssertEqual(book.match("ef").failureCode, .notFound)
        XCTAssertEqual(book.match("").failureCode, .invalidParams)
        book.remove("ab34")
        XCTAssertEqual(try book.match("ab").get().id, "ab12")
    }
}

private extension Result where Failure == ControlError {
    var failureCode: ControlErrorCode? { if case .failure(let error) = self { return error.code } else { return nil } }
}

final class PairingBookTests: XCTestCase {
    func testBookMatchesUniquePrefixesAndKeepsTheLatestCode() throws {
        var book = PairingBook()
        let peer = UUID()
        for (id, seconds) in [("9c1e", 60.0), ("9c2f", 30.0)] {
            book.record(PairingInfo(id: id, peer: peer, name: "n", peerId: "", initiator: false, code: nil, expires: Date(timeIntervalSince1970: seconds)))
        }
        XCTAssertEqual(book.all.map(\.id), ["9c2f", "9c1e"], "soonest to expire first")
        if case .failure(let error) = book.match("9C") { XCTAssertEqual(error.code, .ambiguous) } else { XCTFail("ambiguous") }
        if case .failure(let error) = book.match("ab") { XCTAssertEqual(error.code, .notFound) } else { XCTFail("not found") }
        var info = try book.match("9c1").get()
        info.code = "123456"
        book.record(info)
        XCTAssertEqual(book["9c1e"]?.code, "123456")
        book.remove("9c2f")
        XCTAssertEqual(try? book.match("9c").get().id, "9c1e")
    }
}
