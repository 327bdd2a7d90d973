import Foundation
import XCTest
@testable import PeerCore

/// The one-shot resolver schedule (issue 25, point 5), as tables of events
/// and the actions they give.
final class ResolveScheduleTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_000)

    private func key(_ name: String) -> ServiceKey {
        ServiceKey(interfaceIndex: 2, family: .ipv4, name: name, type: "_peerd._tcp", domain: "local")
    }

    func testAFoundServiceIsWatchedResolvedOnceAndFreed() {
        var schedule = ResolveSchedule(capacity: 8, seed: 1)
        XCTAssertEqual(schedule.found(key("a")), [.watchTXT(key("a")), .resolve(key("a"))])
        XCTAssertEqual(schedule.found(key("a")), [], "a browser reporting it again changes nothing")
        XCTAssertEqual(schedule.resolving, 1)
        XCTAssertEqual(schedule.resolved(key("a"), now: t0), [.stopResolving(key("a"))])
        XCTAssertEqual(schedule.resolving, 0)
        XCTAssertEqual(schedule.resolved(key("a"), now: t0), [], "a late second answer frees nothing twice")
        XCTAssertEqual(schedule.found(key("a")), [], "resting: no resolver for a browser's repeat")
        XCTAssertEqual(schedule.tracked, 1)
    }

    func testAResolvedServiceIsResolvedAgainAfterTheIntervalAndItsSpread() {
        var schedule = ResolveSchedule(capacity: 8, refreshInterval: 600, seed: 7)
        _ = schedule.found(key("a"))
        _ = schedule.resolved(key("a"), now: t0)
        XCTAssertEqual(schedule.due(now: t0.addingTimeInterval(599)), [], "not before the interval")
        XCTAssertEqual(schedule.due(now: t0.addingTimeInterval(900)), [.resolve(key("a"))], "by 1.5 × the interval at most")
        XCTAssertEqual(schedule.due(now: t0.addingTimeInterval(901)), [], "resolving: not started twice")
    }

    func testTheSpreadDiffersBetweenHostsAndKeys() {
        func dueAfter(seed: UInt64, _ name: String) -> TimeInterval {
            var schedule = ResolveSchedule(capacity: 8, refreshInterval: 600, seed: seed)
            _ = schedule.found(key(name))
            _ = schedule.resolved(key(name), now: t0)
            for second in 600...900 where !schedule.due(now: t0.addingTimeInterval(TimeInterval(second))).isEmpty {
                return TimeInterval(second)
            }
            return .infinity
        }
        let times = Set([dueAfter(seed: 1, "a"), dueAfter(seed: 2, "a"), dueAfter(seed: 3, "a"), dueAfter(seed: 1, "b")])
        XCTAssertGreaterThan(times.count, 2, "refreshes spread over the window: \(times)")
        XCTAssertTrue(times.allSatisfy { (600...900).contains($0) }, "\(times)")
        XCTAssertEqual(dueAfter(seed: 5, "a"), dueAfter(seed: 5, "a"), "fixed for one host and key")
    }

    func testAFailedResolveIsTriedAgainAfterTheRetryInterval() {
        var schedule = ResolveSchedule(capacity: 8, refreshInterval: 600, retryInterval: 60, seed: 3)
        _ = schedule.found(key("a"))
        XCTAssertEqual(schedule.failed(key("a"), now: t0), [.stopResolving(key("a"))])
        XCTAssertEqual(schedule.due(now: t0.addingTimeInterval(59)), [])
        XCTAssertEqual(schedule.due(now: t0.addingTimeInterval(90)), [.resolve(key("a"))])
    }

    func testResolversBeyondTheConcurrencyWaitInOrder() {
        var schedule = ResolveSchedule(capacity: 8, concurrency: 2, seed: 1)
        XCTAssertEqual(schedule.found(key("a")), [.watchTXT(key("a")), .resolve(key("a"))])
        XCTAssertEqual(schedule.found(key("b")), [.watchTXT(key("b")), .resolve(key("b"))])
        XCTAssertEqual(schedule.found(key("c")), [.watchTXT(key("c"))], "watched now, resolved when a slot frees")
        XCTAssertEqual(schedule.found(key("d")), [.watchTXT(key("d"))])
        XCTAssertEqual(schedule.failed(key("b"), now: t0), [.stopResolving(key("b")), .resolve(key("c"))])
        XCTAssertEqual(schedule.removed(key("d")), [.unwatchTXT(key("d"))], "a waiting key leaves the queue")
        XCTAssertEqual(schedule.resolved(key("a"), now: t0), [.stopResolving(key("a"))])
        XCTAssertEqual(schedule.resolving, 1)
    }

    func testRemovalFreesTheResolverAndTheWatchAndStartsTheNext() {
        var schedule = ResolveSchedule(capacity: 8, concurrency: 1, seed: 1)
        _ = schedule.found(key("a"))
        _ = schedule.found(key("b"))
        XCTAssertEqual(schedule.removed(key("a")), [.stopResolving(key("a")), .unwatchTXT(key("a")), .resolve(key("b"))])
        _ = schedule.resolved(key("b"), now: t0)
        XCTAssertEqual(schedule.removed(key("b")), [.unwatchTXT(key("b"))], "resting: only its watch")
        XCTAssertEqual(schedule.removed(key("b")), [], "unknown")
        XCTAssertEqual(schedule.tracked, 0)
    }

    func testTheCapacityBoundsTrackedServices() {
        var schedule = ResolveSchedule(capacity: 2, seed: 1)
        XCTAssertNotNil(schedule.found(key("a")))
        XCTAssertNotNil(schedule.found(key("b")))
        XCTAssertNil(schedule.found(key("c")), "at capacity")
        XCTAssertEqual(schedule.found(key("a")), [], "a tracked key still answers")
        _ = schedule.removed(key("a"))
        XCTAssertNotNil(schedule.found(key("c")), "room again")
    }

    func testResetForgetsEverythingTheFreedClientHeld() {
        var schedule = ResolveSchedule(capacity: 8, concurrency: 1, seed: 1)
        _ = schedule.found(key("a"))
        _ = schedule.found(key("b"))
        schedule.reset()
        XCTAssertEqual(schedule.tracked, 0)
        XCTAssertEqual(schedule.resolving, 0)
        XCTAssertEqual(schedule.due(now: t0.addingTimeInterval(10_000)), [])
        XCTAssertEqual(schedule.found(key("a")), [.watchTXT(key("a")), .resolve(key("a"))], "a new client's browser finds it anew")
    }
}
