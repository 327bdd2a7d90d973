import FoundationEssentials
import XCTest
@testable import PeerCore

/// When free heap goes back to the system, as a table of ticks.
final class HeapTrimPolicyTests: XCTestCase {
    func testTrimsWhenMuchIsFreeAtMostEveryInterval() {
        var policy = HeapTrimPolicy()
        let start = Date(timeIntervalSince1970: 1_000)
        let rows: [(seconds: Double, free: Int, trim: Bool, why: String)] = [
            (0, 128 << 10, false, "little free: nothing to do"),
            (1, 300 << 10, true, "more than 256 KiB free: trim"),
            (2, 8 << 20, false, "again within the interval: wait"),
            (10.9, 8 << 20, false, "still within it"),
            (11, 8 << 20, true, "the interval passed"),
            (30, 256 << 10, false, "exactly the limit is not over it"),
        ]
        for row in rows {
            XCTAssertEqual(policy.tick(now: start.addingTimeInterval(row.seconds), freeBytes: row.free), row.trim, row.why)
        }
    }
}

/// Issue 21, point 7: the daemon's clock runs on with `CLOCK_BOOTTIME`
/// from where the wall clock stood, so a step of the wall clock cannot
/// move its deadlines.
final class DaemonClockTests: XCTestCase {
    func testTheSystemClockStartsAtTheWallClockAndNeverGoesBack() {
        let first = DaemonClock.system.now()
        XCTAssertLessThan(abs(first.timeIntervalSince(DaemonClock.wall.now())), 1, "it starts where the wall clock is")
        var last = first
        for _ in 0..<1000 {
            let next = DaemonClock.system.now()
            XCTAssertGreaterThanOrEqual(next, last, "it never goes back")
            last = next
        }
        let before = DaemonClock.bootSeconds()
        usleep(20_000)
        XCTAssertGreaterThanOrEqual(DaemonClock.bootSeconds() - before, 0.02, "boot time advances")
    }
}
