import XCTest
@testable import PeerCore

final class FairSchedulerTests: XCTestCase {
    /// A message queued behind a gigabyte goes at the next pick.
    func testUrgentFramesNeverWaitBehindBulk() {
        var scheduler = FairScheduler()
        scheduler.queue(1 << 30, on: 1)
        scheduler.credit(1 << 30, to: 1)
        XCTAssertEqual(scheduler.pick(), .bulk(flow: 1, bytes: FairScheduler.maxBulkFrame))
        scheduler.addUrgent()
        XCTAssertEqual(scheduler.pick(), .urgent)
        XCTAssertEqual(scheduler.pick(), .bulk(flow: 1, bytes: FairScheduler.maxBulkFrame))
    }

    /// Two busy flows alternate frame by frame; a flow without credit is
    /// skipped until it gets some, and the other goes on.
    func testFlowsTakeTurnsAndAStalledOneHoldsBackOnlyItself() {
        var scheduler = FairScheduler()
        scheduler.queue(10 << 20, on: 1)
        scheduler.queue(10 << 20, on: 2)
        scheduler.credit(10 << 20, to: 1)
        let frame = FairScheduler.maxBulkFrame
        var picks: [FairScheduler.Pick] = []
        for _ in 0..<6 { if let pick = scheduler.pick() { picks.append(pick) } }
        // Flow 2 has only its initial 256 KiB of credit: four whole frames, then a part.
        XCTAssertEqual(picks, [.bulk(flow: 1, bytes: frame), .bulk(flow: 2, bytes: frame), .bulk(flow: 1, bytes: frame),
                               .bulk(flow: 2, bytes: frame), .bulk(flow: 1, bytes: frame), .bulk(flow: 2, bytes: frame)])
        var flow2 = 3 * frame
        var flow1 = 3 * frame
        for _ in 0..<40 {
            guard case .bulk(let flow, let bytes)? = scheduler.pick() else { break }
            if flow == 1 { flow1 += bytes } else { flow2 += bytes }
        }
        XCTAssertEqual(flow2, ReceiveWindow.initial, "flow 2 stops at its credit")
        XCTAssertGreaterThan(flow1, flow2, "flow 1 goes on alone")
        scheduler.credit(frame, to: 2)
        var resumed = false
        for _ in 0..<3 { if case .bulk(2, _)? = scheduler.pick() { resumed = true } }
        XCTAssertTrue(resumed, "credit lets flow 2 go again")
    }

    func testNothingToSendIsNilAndRemovedFlowsAreForgotten() {
        var scheduler = FairScheduler()
        XCTAssertNil(scheduler.pick())
        scheduler.queue(100, on: 7)
        XCTAssertEqual(scheduler.pick(), .bulk(flow: 7, bytes: 100), "a short tail goes whole")
        XCTAssertNil(scheduler.pick(), "nothing left")
        scheduler.queue(100, on: 8)
        scheduler.remove(8)
        XCTAssertNil(scheduler.pick())
    }
}
