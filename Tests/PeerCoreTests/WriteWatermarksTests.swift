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

    /// Issue 21, point 4: unsent answers past 16 KiB stop reading however
    /// small the queue, resume only once both are low, and a peer that keeps
    /// us there is closed after the shorter answer limit.
    func testAnswersPauseOnTheirOwnAndStallSooner() {
        var marks = WriteWatermarks(sendLimit: 1000, stallTimeout: 10, answerStallTimeout: 5)
        let high = WriteWatermarks.answerHigh, low = WriteWatermarks.answerLow
        // (queued, answers, at, action, paused, for answers)
        let steps: [(Int, Int, TimeInterval, WriteWatermarks.Action, Bool, Bool)] = [
            (high, high, 0, .none, false, false),              // at the mark: still reading
            (high + 1, high + 1, 1, .pauseReading, true, true),
            (high, low + 1, 2, .none, true, true),             // answers between the marks
            (high, low, 3, .resumeReading, false, false),
            (marks.high + 1, 0, 4, .pauseReading, true, false), // bytes alone: the long limit
            (marks.high + 1, high + 1, 5, .none, true, true),   // answers join: the short one
        ]
        for (queued, answers, at, action, paused, forAnswers) in steps {
            XCTAssertEqual(marks.queued(queued, answers: answers, now: t0.addingTimeInterval(at)), action, "at \(at)")
            XCTAssertEqual(marks.isPaused, paused, "at \(at)")
            XCTAssertEqual(marks.pausedForAnswers, forAnswers, "at \(at)")
        }
        XCTAssertEqual(marks.activeStallTimeout, 5)
        XCTAssertFalse(marks.isStalled(now: t0.addingTimeInterval(8.9)))
        XCTAssertTrue(marks.isStalled(now: t0.addingTimeInterval(9)), "5 s paused since t=4, answers owed")
        var bytesOnly = WriteWatermarks(sendLimit: 1000)
        _ = bytesOnly.queued(bytesOnly.high + 1, answers: 0, now: t0)
        XCTAssertFalse(bytesOnly.isStalled(now: t0.addingTimeInterval(9)), "without answers owed the limit stays 10 s")
    }
}
