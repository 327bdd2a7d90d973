import Foundation
import XCTest
@testable import PeerCore

final class RateLimiterTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 0)

    func testBurstThenSustainedRatePerKey() {
        var limiter = RateLimiter<String>(perSecond: 2, burst: 3)
        XCTAssertEqual((0..<5).map { _ in limiter.allow("a", now: t0) }, [true, true, true, false, false])
        XCTAssertTrue(limiter.allow("b", now: t0), "keys are separate")
        XCTAssertFalse(limiter.allow("a", now: t0.addingTimeInterval(0.4)))
        XCTAssertTrue(limiter.allow("a", now: t0.addingTimeInterval(0.5)), "one token after half a second at 2/s")
        XCTAssertFalse(limiter.allow("a", now: t0.addingTimeInterval(0.5)))
    }

    func testIdleKeysArePruned() {
        var limiter = RateLimiter<Int>(perSecond: 1, burst: 1)
        for key in 0..<1100 { _ = limiter.allow(key, now: t0) }
        _ = limiter.allow(5000, now: t0.addingTimeInterval(10))
        XCTAssertLessThan(limiter.trackedKeys, 10)
    }
}
