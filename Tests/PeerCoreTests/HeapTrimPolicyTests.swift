import FoundationEssentials
import XCTest
@testable import PeerCore

/// When free heap goes back to the system, as a table of ticks.
final class HeapTrimPolicyTests: XCTestCase {
    func testTrimsWhenMuchIsFreeAtMostEveryInterval() {
        var policy = HeapTrimPolicy()
        let start = Date(timeIntervalSince1970: 1_000)
        let rows: [(seconds: Double, free: Int, trim: Bool, why: String)] = [
            (0, 1 << 20, false, "little free: nothing to do"),
            (1, 3 << 20, true, "much free: trim"),
            (2, 8 << 20, false, "again within the interval: wait"),
            (10.9, 8 << 20, false, "still within it"),
            (11, 8 << 20, true, "the interval passed"),
            (30, 2 << 20, false, "exactly the limit is not over it"),
        ]
        for row in rows {
            XCTAssertEqual(policy.tick(now: start.addingTimeInterval(row.seconds), freeBytes: row.free), row.trim, row.why)
        }
    }
}
