import Foundation
import XCTest
@testable import PeerCore

final class InboxIndexTests: XCTestCase {
    private func entry(_ id: UInt64, _ peer: String, _ size: Int) -> InboxEntry {
        InboxEntry(id: id, peerID: peer, received: Date(timeIntervalSince1970: 0), size: size, offset: Int(id) * 100)
    }

    func testCountsLookUpsAndRemovals() {
        var index = InboxIndex([entry(1, "a", 10), entry(2, "b", 20)])
        index.append(entry(3, "a", 30))
        index.append(entry(5, "b", 5))
        let record = { (size: Int) in InboxFileCodec.recordSize(dataCount: size) }
        XCTAssertEqual(index.bytes, record(10) + record(20) + record(30) + record(5))
        XCTAssertEqual(index.bySender["a"], InboxIndex.Share(count: 2, bytes: record(10) + record(30)))
        XCTAssertEqual(index.entry(id: 3)?.size, 30)
        XCTAssertNil(index.entry(id: 4), "no such id")
        XCTAssertNil(index.entry(id: 9))
        // From the front (the usual case), then from the middle.
        XCTAssertEqual(index.remove([1]).map(\.id), [1])
        XCTAssertNil(index.entry(id: 1), "taken ids are not found")
        XCTAssertEqual(index.remove([5, 42]).map(\.id), [5], "ids not waiting are ignored")
        XCTAssertEqual(index.entries.map(\.id), [2, 3])
        XCTAssertEqual(index.bySender["b"], InboxIndex.Share(count: 1, bytes: record(20)))
        XCTAssertEqual(index.remove([2, 3]).count, 2)
        XCTAssertTrue(index.entries.isEmpty)
        XCTAssertEqual(index.bytes, 0)
        XCTAssertTrue(index.bySender.isEmpty, "no sender left with nothing")
    }

    func testManyTakenFromTheFrontStayFound() {
        var index = InboxIndex((1...3000).map { entry(UInt64($0), "a", 1) })
        for id in 1...2000 { index.remove([UInt64(id)]) }
        XCTAssertEqual(index.entries.count, 1000)
        XCTAssertEqual(index.entry(id: 2500)?.id, 2500)
        XCTAssertNil(index.entry(id: 1500))
    }

    /// A backlog taken away leaves no array of its size behind: all at
    /// once when the index empties, else once taken entries are over half.
    func testADrainedBacklogLetsItsCapacityGo() {
        var index = InboxIndex()
        for id in 1...5000 { index.append(entry(UInt64(id), "a", 1)) }
        XCTAssertGreaterThanOrEqual(index.heldCapacity, 5000)
        for id in 1...3000 { index.remove([UInt64(id)]) }
        XCTAssertLessThan(index.heldCapacity, 5000, "over half taken: a new array of the rest")
        XCTAssertEqual(index.entries.map(\.id), Array(3001...5000))
        for id in 3001...5000 { index.remove([UInt64(id)]) }
        XCTAssertEqual(index.heldCapacity, 0, "nothing waits: nothing held")
        index.append(entry(5001, "a", 1))
        XCTAssertEqual(index.entry(id: 5001)?.id, 5001)
    }
}
