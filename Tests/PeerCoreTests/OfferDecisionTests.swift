import XCTest
@testable import PeerCore
import PeerProtocol

final class OfferDecisionTests: XCTestCase {
    private let MiB: Int64 = 1 << 20

    func testTable() {
        // (bytes, count, free, policy, paired, deciders, expected)
        let rows: [(Int64, Int, Int64, AutoAcceptPolicy, Bool, Int, OfferDecision)] = [
            // (Quick Save rows are in testQuickSave.)
            (10 * MiB, 1, 100 * MiB, .paired, true, 0, .accept),
            (10 * MiB, 1, 100 * MiB, .paired, false, 1, .ask),
            (10 * MiB, 1, 100 * MiB, .paired, false, 0, .wait),
            (10 * MiB, 1, 100 * MiB, .none, true, 2, .ask),
            (10 * MiB, 1, 100 * MiB, .all, false, 0, .accept),
            (95 * MiB, 3, 100 * MiB, .all, true, 1, .refuseNoSpace(.bytes(needed: 105 * MiB, free: 100 * MiB))),
            (90 * MiB, 3, 100 * MiB, .all, true, 1, .accept),
            (0, 0, 100 * MiB, .all, true, 1, .refuseNothingAcceptable),
            (0, 1, 100 * MiB, .none, false, 0, .wait),
        ]
        for (bytes, count, free, policy, paired, deciders, expected) in rows {
            let budget = DiskBudget(freeBytes: free, freeInodes: nil, promised: .zero, reserve: DiskBudget.Cost(bytes: 10 * MiB, inodes: 0))
            XCTAssertEqual(OfferDecision.decide(cost: DiskBudget.Cost(bytes: bytes, inodes: Int64(count)), count: count, budget: budget,
                                                policy: policy, paired: paired, deciders: deciders),
                           expected, "\(bytes) B in \(count), \(policy), paired \(paired), \(deciders) deciders")
        }
    }

    /// Issue 45: a peer's Quick Save rule accepts whatever the policy,
    /// but never past the disk's room, and never an offer with nothing
    /// acceptable in it.
    func testQuickSave() {
        let budget = DiskBudget(freeBytes: 100 * MiB, freeInodes: nil, promised: .zero, reserve: DiskBudget.Cost(bytes: 10 * MiB, inodes: 0))
        let rows: [(Int64, Int, AutoAcceptPolicy, Int, OfferDecision)] = [
            (10 * MiB, 1, .none, 0, .acceptQuickSave),
            (10 * MiB, 1, .none, 3, .acceptQuickSave),
            (10 * MiB, 1, .paired, 0, .acceptQuickSave),
            (10 * MiB, 1, .all, 0, .acceptQuickSave),
            (95 * MiB, 1, .none, 1, .refuseNoSpace(.bytes(needed: 105 * MiB, free: 100 * MiB))),
            (0, 0, .none, 1, .refuseNothingAcceptable),
        ]
        for (bytes, count, policy, deciders, expected) in rows {
            XCTAssertEqual(OfferDecision.decide(cost: DiskBudget.Cost(bytes: bytes, inodes: Int64(count)), count: count, budget: budget,
                                                policy: policy, paired: true, quickSave: true, deciders: deciders),
                           expected, "\(bytes) B in \(count), \(policy), \(deciders) deciders")
        }
    }

    /// Issue 21, point 1.3: two 200 MiB offers against 285 MiB free were
    /// both accepted, each checked alone; the second must count the first.
    func testOffersInProgressAreCounted() {
        let offer = DiskBudget.Cost(bytes: 200 * MiB, inodes: 2)
        let first = DiskBudget(freeBytes: 285 * MiB, freeInodes: 10_000, promised: .zero, reserve: DiskBudget.defaultReserve)
        XCTAssertNil(first.shortfall(for: offer))
        let second = DiskBudget(freeBytes: 285 * MiB, freeInodes: 10_000, promised: offer, reserve: DiskBudget.defaultReserve)
        XCTAssertEqual(second.shortfall(for: offer), .bytes(needed: 464 * MiB, free: 285 * MiB))
    }

    /// A 4,000-file offer that declares 0 bytes used every inode of a
    /// small file system: inodes are a budget of their own.
    func testInodesAreABudget() {
        let paths = (0..<4000).map { (path: try! TransferPath.check("d\($0 / 10)/f\($0)").get(), size: Int64(0)) }
        let cost = DiskBudget.cost(of: paths)
        XCTAssertEqual(cost, DiskBudget.Cost(bytes: 0, inodes: 8000 + 400), "two inodes a file, one a folder")
        let small = DiskBudget(freeBytes: 1 << 40, freeInodes: 5000, promised: .zero, reserve: DiskBudget.defaultReserve)
        XCTAssertEqual(small.shortfall(for: cost), .inodes(needed: 8400 + 1024, free: 5000))
        let unlimited = DiskBudget(freeBytes: 1 << 40, freeInodes: nil, promised: .zero, reserve: DiskBudget.defaultReserve)
        XCTAssertNil(unlimited.shortfall(for: cost), "a file system without an inode count (btrfs) has no inode budget")
        XCTAssertEqual(DiskBudget.cost(of: [(path: try! TransferPath.check("a/b/c/x").get(), size: 5),
                                            (path: try! TransferPath.check("a/b/y").get(), size: 7)]),
                       DiskBudget.Cost(bytes: 12, inodes: 4 + 3), "folders a, a/b and a/b/c once each")
    }

    /// Sizes come from peers: sums saturate, never trap.
    func testCostsSaturate() {
        let huge = DiskBudget.Cost(bytes: .max - 1, inodes: 1)
        XCTAssertEqual((huge + huge).bytes, .max)
        XCTAssertNotNil(DiskBudget(freeBytes: 1 << 40, freeInodes: nil, promised: huge, reserve: DiskBudget.defaultReserve).shortfall(for: huge))
    }
}
