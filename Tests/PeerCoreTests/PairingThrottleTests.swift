import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

final class PairingThrottleTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 0)

    func testThreeFailuresInTenMinutesLockOutForTenMinutes() {
        var throttle = PairingThrottle()
        XCTAssertNil(throttle.recordFailure("p", now: t0))
        XCTAssertNil(throttle.recordFailure("p", now: t0.addingTimeInterval(100)))
        XCTAssertNil(throttle.refusedUntil("p", now: t0.addingTimeInterval(101)))
        let until = throttle.recordFailure("p", now: t0.addingTimeInterval(200))
        XCTAssertEqual(until, t0.addingTimeInterval(800))
        XCTAssertEqual(throttle.refusedUntil("p", now: t0.addingTimeInterval(799)), until)
        XCTAssertNil(throttle.refusedUntil("p", now: t0.addingTimeInterval(800)))
        XCTAssertNil(throttle.refusedUntil("other", now: t0.addingTimeInterval(300)), "per peer")
    }

    func testOldFailuresExpire() {
        var throttle = PairingThrottle()
        _ = throttle.recordFailure("p", now: t0)
        _ = throttle.recordFailure("p", now: t0.addingTimeInterval(100))
        XCTAssertNil(throttle.recordFailure("p", now: t0.addingTimeInterval(700)), "the first failure left the window")
    }

    func testCodeFormat() {
        XCTAssertTrue(PairingCode.isWellFormed("012345"))
        XCTAssertFalse(PairingCode.isWellFormed("12345"))
        XCTAssertFalse(PairingCode.isWellFormed("12345a"))
        let fixed = PairingCode.derive(handshakeHash: [], initiatorNonce: [], responderNonce: [], sha256: { _ in [0, 0, 0, 0, 0, 0, 0x03, 0xE8] })
        XCTAssertEqual(fixed, "001000", "leading zeros are kept")
    }
}
