import FoundationEssentials
import XCTest
@testable import PeerCore
import PeerProtocol

/// How a session's bulk lane comes to be, or why not (docs/protocol.md
/// §12), as a table: each row is a plan, what happened to it, and what
/// the shell must do.
final class BulkLanePlanTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000)

    func testTheTable() {
        typealias Step = (inout BulkLanePlan) -> [BulkLanePlan.Action]
        let rows: [(String, BulkLanePlan.Side, [Step], [BulkLanePlan.Action], BulkLanePlan.Step)] = [
            ("a dialer dials the offered port", .dialer, [{ $0.offerReceived(port: 8010) }], [.dial(port: 8010)], .dialing),
            ("then uses the lane once up", .dialer, [{ $0.offerReceived(port: 8010) }, { $0.laneUp() }], [.useLane], .settled),
            ("port 0 keeps bulk on the stream", .dialer, [{ $0.offerReceived(port: 0) }],
             [.useStream("the peer offered no lane (its lane port is closed)")], .settled),
            ("a failed dial falls back, with its words", .dialer, [{ $0.offerReceived(port: 1) }, { $0.laneFailed("connect to x: refused") }],
             [.useStream("connect to x: refused")], .settled),
            ("a second offer is a violation", .dialer, [{ $0.offerReceived(port: 1) }, { $0.offerReceived(port: 2) }],
             [.violation("a second laneOffer")], .dialing),
            ("an offer to the offerer is a violation", .offerer, [{ $0.offerReceived(port: 1) }],
             [.violation("a laneOffer from the session's initiator")], .offered),
            ("the offerer uses the lane once its handshake is done", .offerer, [{ $0.laneUp() }], [.useLane], .settled),
            ("no offer within 5 s", .dialer, [{ $0.tick(now: self.start.addingTimeInterval(4.9)) }, { $0.tick(now: self.start.addingTimeInterval(5)) }],
             [.useStream("no laneOffer came within 5 s")], .settled),
            ("no lane within 5 s", .offerer, [{ $0.tick(now: self.start.addingTimeInterval(5)) }],
             [.useStream("the lane did not come up within 5 s")], .settled),
            ("settled plans ignore the rest", .offerer, [{ $0.laneUp() }, { $0.laneFailed("late") }, { $0.tick(now: self.start.addingTimeInterval(60)) }],
             [], .settled),
        ]
        for (name, side, steps, last, step) in rows {
            var plan = BulkLanePlan(side: side, now: start)
            var actions: [BulkLanePlan.Action] = []
            for apply in steps { actions = apply(&plan) }
            XCTAssertEqual(actions, last, name)
            XCTAssertEqual(plan.step, step, name)
        }
    }

    func testTheOfferersFirstMove() {
        XCTAssertEqual(BulkLanePlan.offer(port: .success(8010)), [.sendOffer(port: 8010)])
        XCTAssertEqual(BulkLanePlan.offer(port: .failure(LaneUnavailable("lanes are off here"))),
                       [.sendOffer(port: 0), .useStream("lanes are off here")], "port 0 tells the peer, and this side falls back at once")
    }

    func testWhatRidesTheLane() {
        let flow = FlowID(bytes: Array(0..<16))!
        let riding: [BulkMessage] = [.chunk(flow, file: 0, offset: 0, bytes: [1]), .block(flow, file: 0, block: 0, hash: []),
                                     .fileEnd(flow, file: 0, hash: []), .streamOpen(flow, name: "x"), .streamData(flow, bytes: [1]), .streamEnd(flow)]
        let staying: [BulkMessage] = [.offer(flow, more: false, totalFiles: 0, totalBytes: 0, files: []), .answer(flow, more: false, files: []),
                                      .transferDone(flow), .cancel(flow, reason: .cancelled, text: ""), .credit(flow, bytes: 1),
                                      .streamReset(flow, reason: .cancelled, text: "")]
        XCTAssertTrue(riding.allSatisfy(\.ridesLane))
        XCTAssertTrue(staying.allSatisfy { !$0.ridesLane })
    }
}
