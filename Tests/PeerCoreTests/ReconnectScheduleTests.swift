import Foundation
import XCTest
@testable import PeerCore

final class ReconnectScheduleTests: XCTestCase {
    private let peer = UUID()
    private let t0 = Date(timeIntervalSince1970: 0)

    func testBackoffDoublesToSixtySeconds() {
        var schedule = ReconnectSchedule()
        XCTAssertTrue(schedule.isDue(peer, now: t0))
        var now = t0
        var delays: [TimeInterval] = []
        for _ in 0..<9 {
            let due = schedule.attempted(peer, now: now, random: 0.5)
            delays.append(due.timeIntervalSince(now))
            XCTAssertFalse(schedule.isDue(peer, now: due.addingTimeInterval(-0.01)))
            XCTAssertTrue(schedule.isDue(peer, now: due))
            now = due
        }
        XCTAssertEqual(delays, [1, 2, 4, 8, 16, 32, 60, 60, 60])
    }

    func testNetworkReturnedMakesEveryPeerDueAndRestartsTheBackoff() {
        var schedule = ReconnectSchedule()
        let other = UUID()
        for _ in 0..<5 { _ = schedule.attempted(peer, now: t0, random: 0.5); _ = schedule.attempted(other, now: t0, random: 0.5) }
        XCTAssertFalse(schedule.isDue(peer, now: t0.addingTimeInterval(10)))
        schedule.networkReturned()
        XCTAssertTrue(schedule.isDue(peer, now: t0))
        XCTAssertTrue(schedule.isDue(other, now: t0))
        XCTAssertEqual(schedule.attempts(peer), 0)
        XCTAssertEqual(schedule.attempted(peer, now: t0, random: 0.5).timeIntervalSince(t0), 1, accuracy: 1e-9)
    }

    func testJitterSpreadsTwentyPercent() {
        var low = ReconnectSchedule(), high = ReconnectSchedule()
        for _ in 0..<3 { _ = low.attempted(peer, now: t0, random: 0); _ = high.attempted(peer, now: t0, random: 1) }
        XCTAssertEqual(low.attempted(peer, now: t0, random: 0).timeIntervalSince(t0), 6.4, accuracy: 1e-6)
        XCTAssertEqual(high.attempted(peer, now: t0, random: 1).timeIntervalSince(t0), 9.6, accuracy: 1e-6)
    }

    func testAppearingOrConnectingResets() {
        var schedule = ReconnectSchedule()
        for _ in 0..<5 { _ = schedule.attempted(peer, now: t0, random: 0.5) }
        XCTAssertFalse(schedule.isDue(peer, now: t0.addingTimeInterval(1)))
        schedule.appeared(peer, now: t0.addingTimeInterval(1))
        XCTAssertTrue(schedule.isDue(peer, now: t0.addingTimeInterval(1)))
        XCTAssertEqual(schedule.attempts(peer), 5, "appearing does not forget the failures")
        schedule.succeeded(peer)
        XCTAssertEqual(schedule.attempts(peer), 0)
        XCTAssertEqual(schedule.attempted(peer, now: t0, random: 0.5).timeIntervalSince(t0), 1)
    }
}

final class ReconnectPauseTests: XCTestCase {
    func testAPausedPeerIsNotDueUntilThePauseEndsOrItIsResumedOrConnects() {
        let peer = UUID()
        let now = Date(timeIntervalSince1970: 1000)
        var schedule = ReconnectSchedule()
        schedule.pause(peer, until: now.addingTimeInterval(30))
        XCTAssertFalse(schedule.isDue(peer, now: now))
        XCTAssertFalse(schedule.isDue(peer, now: now.addingTimeInterval(29)))
        XCTAssertTrue(schedule.isDue(peer, now: now.addingTimeInterval(30)))
        schedule.pause(peer, until: .distantFuture)
        XCTAssertTrue(schedule.isPaused(peer, now: now))
        schedule.resume(peer)
        XCTAssertTrue(schedule.isDue(peer, now: now))
        schedule.pause(peer, until: .distantFuture)
        schedule.succeeded(peer)
        XCTAssertTrue(schedule.isDue(peer, now: now), "a session that connected ends the pause")
    }
}
