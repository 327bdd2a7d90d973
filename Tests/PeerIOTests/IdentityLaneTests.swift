import XCTest
@testable import PeerIO

final class IdentityLaneTests: XCTestCase {
    /// Jobs that await something slow and something fast still finish in
    /// the order they were submitted: one runs at a time.
    @MainActor
    func testJobsRunOneAtATimeInOrder() async {
        let lane = IdentityLane()
        let log = Log()
        for index in 0..<20 {
            lane.submit {
                log.entries.append("start \(index)")
                // Odd jobs yield longer: unordered tasks would overtake here.
                for _ in 0..<(index % 2 == 0 ? 1 : 5) { await Task.yield() }
                log.entries.append("end \(index)")
            }
        }
        lane.finish()
        await lane.run()
        XCTAssertEqual(log.entries, (0..<20).flatMap { ["start \($0)", "end \($0)"] })
    }

    /// A finished lane runs what was queued before, and nothing after.
    @MainActor
    func testFinishEndsTheRunAfterQueuedJobs() async {
        let lane = IdentityLane()
        let log = Log()
        lane.submit { log.entries.append("before") }
        lane.finish()
        lane.submit { log.entries.append("after") }
        await lane.run()
        XCTAssertEqual(log.entries, ["before"])
    }

    @MainActor
    private final class Log {
        var entries: [String] = []
    }
}
