import Foundation
import XCTest
@testable import PeerCore

final class WriteWatermarksTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1000)

    func testPauseAboveHighResumeAtLowAndStallAfterTheTimeout() {
        var marks = WriteWatermarks(sendLimit: 1000, stallTimeout: 10)
        XCTAssertEqual([marks.high, marks.low], [1000 + 262_144, 1000 + 65_536])
        let steps: [(Int, TimeInterval, WriteWatermarks.Action, Bool)] = [
            (1000, 0, .none, false),            // application data alone never pauses
            (marks.high, 0, .none, false),      // at the mark: still reading
            (marks.high + 1, 1, .pauseReading, true),
            (marks.high + 500, 2, .none, true), // paused once, not again
            (marks.low + 1, 3, .none, true),    // between the marks: still paused
            (marks.low, 4, .resumeReading, false),
            (marks.high + 1, 5, .pauseReading, true),
        ]
        for (queued, at, action, paused) in steps {
            XCTAssertEqual(marks.queued(queued, now: t0.addingTimeInterval(at)), action, "queued \(queued)")
            XCTAssertEqual(marks.isPaused, paused, "queued \(queued)")
        }
        XCTAssertFalse(marks.isStalled(now: t0.addingTimeInterval(14.9)))
        XCTAssertTrue(marks.isStalled(now: t0.addingTimeInterval(15)), "10 s above the mark since t=5")
    }
}
