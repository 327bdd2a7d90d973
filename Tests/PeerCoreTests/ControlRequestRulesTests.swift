import Foundation
import XCTest
@testable import PeerCore

final class ControlRequestRulesTests: XCTestCase {
    private let row = PeerSnapshot(id: UUID(), peerId: "aa", name: "alpha", state: .notConnected, endpoints: [], info: [:],
                                   lastSeen: Date(timeIntervalSince1970: 0), lost: false)

    func testSendPathTable() {
        let notQueued = ControlError(.notConnected, "'alpha' is not connected; 'alpha' is not paired, so nothing can be queued for it")
        // (queue, paired, connected, expected)
        let rows: [(Bool?, Bool, Bool, ControlRequestRules.SendPath)] = [
            (nil, true, true, .session),
            (false, true, false, .session),
            (true, true, false, .queue(peerID: "aa")),
            (true, true, true, .queue(peerID: "aa")),
            (true, false, true, .session),
            (true, false, false, .refused(notQueued)),
        ]
        for (queue, paired, connected, expected) in rows {
            XCTAssertEqual(ControlRequestRules.sendPath(queue: queue, peer: row, paired: paired, connected: connected), expected,
                           "queue \(String(describing: queue)), paired \(paired), connected \(connected)")
        }
        var anonymous = row
        anonymous.peerId = nil
        XCTAssertEqual(ControlRequestRules.sendPath(queue: true, peer: anonymous, paired: true, connected: false), .refused(notQueued),
                       "no peer id, no queue")
    }

    func testParameters() {
        XCTAssertEqual(try ControlRequestRules.invitation(ControlParams()).get(), .init(context: [], timeout: 30))
        XCTAssertEqual(try ControlRequestRules.invitation(ControlParams(context: "hi", timeout: 300)).get(), .init(context: Array("hi".utf8), timeout: 300))
        for timeout in [0.5, 301] {
            XCTAssertEqual(ControlRequestRules.invitation(ControlParams(timeout: timeout)),
                           .failure(ControlError(.invalidParams, "timeout must be 1 to 300 seconds")))
        }
        let long = String(repeating: "x", count: WireCodec.maxContext + 1)
        XCTAssertEqual(ControlRequestRules.invitation(ControlParams(context: long)),
                       .failure(ControlError(.invalidParams, "context is \(WireCodec.maxContext + 1) bytes; at most \(WireCodec.maxContext)")))
        XCTAssertEqual(try ControlRequestRules.message(ControlParams(data: "aGk="), maxMessage: 2).get(), Array("hi".utf8))
        XCTAssertEqual(ControlRequestRules.message(ControlParams(data: "aGk="), maxMessage: 1),
                       .failure(ControlError(.invalidParams, "the message is 2 bytes; the limit is 1")))
        XCTAssertEqual(ControlRequestRules.message(ControlParams(data: "not base64!"), maxMessage: 10),
                       .failure(ControlError(.invalidParams, "'send' needs params.data: the message in base64")))
        XCTAssertEqual(ControlRequestRules.peerSelector(.send, ControlParams()), .failure(ControlError(.invalidParams, "'send' needs params.peer")))
        XCTAssertEqual(ControlRequestRules.peerSelector(.peer, ControlParams()),
                       .failure(ControlError(.invalidParams, "'peer' needs params.peer: a UUID, a unique UUID prefix or a unique name")))
        XCTAssertEqual(try ControlRequestRules.pairingKey(.pairAccept, ControlParams(pairing: "AB12")).get(), "ab12")
        XCTAssertEqual(ControlRequestRules.pairingKey(.pairReject, ControlParams(pairing: "")),
                       .failure(ControlError(.invalidParams, "'pairReject' needs params.pairing")))
    }
}
