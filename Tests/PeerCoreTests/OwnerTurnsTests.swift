import XCTest
@testable import PeerCore

/// Issue 45 (limits per owner): one owner's long queue delays another's
/// next job by one job.
final class OwnerTurnsTests: XCTestCase {
    func testOwnersTakeTurnsAndKeepTheirOrder() {
        var turns = OwnerTurns<UInt32, String>()
        for n in 1...4 { turns.add("a\(n)", for: 1000) }
        turns.add("b1", for: 1001)
        turns.add("b2", for: 1001)
        turns.add("c1", for: 0)
        XCTAssertEqual(turns.count, 7)
        var taken: [String] = []
        while let next = turns.next() { taken.append(next.job) }
        XCTAssertEqual(taken, ["a1", "b1", "c1", "a2", "b2", "a3", "a4"])
        XCTAssertEqual(turns.count, 0)
        XCTAssertNil(turns.next())
    }

    func testAnOwnerBackAfterItsQueueEmptiedJoinsAtTheEnd() {
        var turns = OwnerTurns<Int, Int>()
        turns.add(1, for: 1)
        turns.add(2, for: 2)
        XCTAssertEqual(turns.next()?.job, 1)
        turns.add(3, for: 1)
        turns.add(4, for: 2)
        XCTAssertEqual([turns.next()?.job, turns.next()?.job, turns.next()?.job], [2, 3, 4],
                       "owner 2 had its turn next; owner 1 came back behind it, before owner 2's second")
    }
}
