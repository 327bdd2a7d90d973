import XCTest
@testable import PeerCore

final class OfferDecisionTests: XCTestCase {
    func testTable() {
        let MiB: Int64 = 1 << 20
        // (bytes, count, free, policy, paired, deciders, expected)
        let rows: [(Int64, Int, Int64, AutoAcceptPolicy, Bool, Int, OfferDecision)] = [
            (10 * MiB, 1, 100 * MiB, .paired, true, 0, .accept),
            (10 * MiB, 1, 100 * MiB, .paired, false, 1, .ask),
            (10 * MiB, 1, 100 * MiB, .paired, false, 0, .wait),
            (10 * MiB, 1, 100 * MiB, .none, true, 2, .ask),
            (10 * MiB, 1, 100 * MiB, .all, false, 0, .accept),
            (95 * MiB, 3, 100 * MiB, .all, true, 1, .refuseNoSpace(needed: 105 * MiB, free: 100 * MiB)),
            (90 * MiB, 3, 100 * MiB, .all, true, 1, .accept),
            (0, 0, 100 * MiB, .all, true, 1, .refuseNothingAcceptable),
            (0, 1, 100 * MiB, .none, false, 0, .wait),
        ]
        for (bytes, count, free, policy, paired, deciders, expected) in rows {
            XCTAssertEqual(OfferDecision.decide(bytes: bytes, count: count, free: free, reserve: 10 * MiB, policy: policy, paired: paired,
                                                deciders: deciders), expected, "\(bytes) B in \(count), \(policy), paired \(paired), \(deciders) deciders")
        }
    }
}
