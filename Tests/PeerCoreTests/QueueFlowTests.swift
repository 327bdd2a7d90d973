import Foundation
import XCTest
@testable import PeerCore

final class QueueFlowTests: XCTestCase {
    private let peer = UUID()

    /// A session's life, step by step: (step, next index with 5 pending, messages acknowledged off the disk).
    func testTable() {
        var flow = QueueFlow()
        XCTAssertEqual(flow.nextIndex(for: peer, pending: 5), 0, "nothing sent yet")
        // A plain message (number 1) went first; queued ones are 2, 3, 4.
        for number: UInt64 in [2, 3, 4] { flow.sent(number, to: peer) }
        XCTAssertEqual(flow.nextIndex(for: peer, pending: 5), 3, "three in flight")
        XCTAssertEqual(flow.acknowledged(through: 1, by: peer), 0, "an ack of the plain message alone")
        XCTAssertEqual(flow.acknowledged(through: 3, by: peer), 2, "messages 2 and 3")
        XCTAssertEqual(flow.nextIndex(for: peer, pending: 3), 1, "of the 3 left on disk, one is in flight")
        flow.sessionEnded(peer)
        XCTAssertEqual(flow.nextIndex(for: peer, pending: 3), 0, "after the session, all go again")
        XCTAssertEqual(flow.acknowledged(through: 99, by: peer), 0, "an ack of an old session covers nothing")
    }

    func testPeersAreIndependent() {
        var flow = QueueFlow()
        let other = UUID()
        flow.sent(1, to: peer)
        XCTAssertEqual(flow.inFlightCount(other), 0)
        XCTAssertEqual(flow.acknowledged(through: 1, by: other), 0)
        XCTAssertEqual(flow.acknowledged(through: 1, by: peer), 1)
    }
}
