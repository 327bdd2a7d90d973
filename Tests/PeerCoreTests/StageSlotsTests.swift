import XCTest
@testable import PeerCore

/// The stages past the page cache are counted per peer and for the host
/// (issue 44): one peer never takes them all.
final class StageSlotsTests: XCTestCase {
    func testTakesTable() {
        // (a step: take for a peer (true) or give back (false), what a take returns)
        let steps: [(peer: String, take: Bool, granted: Bool?)] = [
            ("a", true, true), ("a", true, true),
            ("a", true, false),             // a's share is full
            ("b", true, true), ("b", true, true),
            ("c", true, false),             // the host's is full (4)
            ("a", false, nil),
            ("c", true, true),              // a's slot went back
            ("a", true, false),             // the host is full again
            ("z", false, nil),              // giving back what was never taken changes nothing
        ]
        var slots = StageSlots(perPeer: 2, host: 4)
        for (index, step) in steps.enumerated() {
            if step.take {
                XCTAssertEqual(slots.take(peer: step.peer), step.granted, "step \(index)")
            } else {
                slots.giveBack(peer: step.peer)
            }
        }
        XCTAssertEqual(slots.held, ["a": 1, "b": 2, "c": 1])
        XCTAssertEqual(slots.total, 4)
    }

    func testDefaultsLeaveRoomForOthers() {
        XCTAssertLessThan(StageSlots.perPeerDefault, StageSlots.hostDefault)
        var slots = StageSlots()
        while slots.take(peer: "greedy") {}
        XCTAssertEqual(slots.held["greedy"], StageSlots.perPeerDefault)
        XCTAssertTrue(slots.take(peer: "other"), "one peer never takes every slot")
    }
}
