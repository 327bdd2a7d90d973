import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

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

    /// A group send's targets: each selector resolved alone (a bad one is
    /// its entry's error), every connected peer by name for `all`, and the
    /// shapes that are no group at all refused.
    func testGroupTargets() {
        let a = PeerSnapshot(id: UUID(), peerId: "a1", name: "bravo", state: .connected, endpoints: [], info: [:], lastSeen: Date(), lost: false)
        let b = PeerSnapshot(id: UUID(), peerId: "b1", name: "alpha", state: .connected, endpoints: [], info: [:], lastSeen: Date(), lost: false)
        let c = PeerSnapshot(id: UUID(), peerId: "c1", name: "charlie", state: .notConnected, endpoints: [], info: [:], lastSeen: Date(), lost: false)
        let peers = [a, b, c]
        let connected: (UUID) -> Bool = { $0 != c.id }
        var params = ControlParams()
        params.peers = ["bravo", "nobody", "charlie"]
        let named = try? ControlRequestRules.groupTargets(params, peers: peers, connected: connected).get()
        XCTAssertEqual(named?.map(\.selector), ["bravo", "nobody", "charlie"])
        XCTAssertEqual(try? named?[0].peer.get().id, a.id)
        XCTAssertThrowsError(try named?[1].peer.get()) { XCTAssertEqual(($0 as? ControlError)?.code, .notFound) }
        XCTAssertEqual(try? named?[2].peer.get().id, c.id, "not connected is the send's error, not the selector's")
        params = ControlParams()
        params.all = true
        XCTAssertEqual((try? ControlRequestRules.groupTargets(params, peers: peers, connected: connected).get())?.map { try? $0.peer.get().name },
                       ["alpha", "bravo"], "all: the connected peers, by name")
        let refused: [ControlParams] = {
            var both = ControlParams(); both.peers = ["a"]; both.all = true
            var withPeer = ControlParams(peer: "a"); withPeer.all = true
            var empty = ControlParams(); empty.peers = []
            var many = ControlParams(); many.peers = Array(repeating: "a", count: ControlRequestRules.maxGroupPeers + 1)
            return [both, withPeer, empty, many]
        }()
        for params in refused {
            XCTAssertThrowsError(try ControlRequestRules.groupTargets(params, peers: peers, connected: connected).get()) {
                XCTAssertEqual(($0 as? ControlError)?.code, .invalidParams)
            }
        }
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
