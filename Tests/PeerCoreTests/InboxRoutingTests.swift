import Foundation
import XCTest
@testable import PeerCore

final class InboxRoutingTests: XCTestCase {
    private let a = String(repeating: "a", count: 32)
    private let b = String(repeating: "b", count: 32)

    private func usage(_ bytes: Int = 0, unpaired: Int = 0, waiting: Int = 0) -> InboxRouting.Usage {
        .init(bytes: bytes, unpairedBytes: unpaired, waitingFromSender: waiting)
    }

    /// Where one message goes, for each situation the inbox can be in.
    func testRouteTable() {
        let record = InboxFileCodec.recordSize(dataCount: 100)
        let rows: [(String, [Int: InboxRouting.Taker], Bool, InboxRouting.Usage, InboxRouting.Route)] = [
            ("no taker: stored", [:], true, usage(), .store),
            ("a taker: live", [1: .init()], true, usage(), .live([1])),
            ("every taker that wants it", [1: .init(), 2: .init(from: a), 3: .init(from: b)], true, usage(), .live([1, 2])),
            ("a taker for another peer only: stored", [3: .init(from: b)], true, usage(), .store),
            ("a taker that took its count: stored", [1: .init(remaining: 0)], true, usage(), .store),
            ("older messages from the sender wait: joins them", [1: .init()], true, usage(record, waiting: 1), .store),
            ("full: refused", [:], true, usage(1000 - record + 1), .refuse(.full(limit: 1000, used: 1000 - record + 1))),
            ("exactly full: stored", [:], true, usage(1000 - record), .store),
            ("full, but a taker: live", [1: .init()], true, usage(1000), .live([1])),
            ("unpaired share used up: refused", [:], false, usage(200, unpaired: 200), .refuse(.unpairedShare(limit: 250, used: 200))),
            ("unpaired share, paired sender: stored", [:], true, usage(200, unpaired: 200), .store),
        ]
        for (name, takers, paired, usage, expected) in rows {
            var routing = InboxRouting(limit: 1000)
            for (number, taker) in takers { routing.add(taker, number: number) }
            XCTAssertEqual(routing.route(from: a, paired: paired, size: 100, usage: usage), expected, name)
        }
    }

    func testATakerWithACountStopsTakingAtIt() {
        var routing = InboxRouting(limit: 1 << 20)
        routing.add(.init(remaining: 2), number: 7)
        XCTAssertFalse(routing.handed(1, to: 7))
        XCTAssertTrue(routing.handed(1, to: 7))
        XCTAssertNil(routing.takers[7])
        XCTAssertEqual(routing.route(from: a, paired: true, size: 1, usage: usage()), .store)
    }

    func testBatchesKeepOrderSkipHeldAndOtherSendersAndStopAtTheBudget() {
        let entries = (1...6).map { InboxEntry(id: UInt64($0), peerID: $0 % 3 == 0 ? b : a, received: Date(timeIntervalSince1970: 0), size: 100, offset: 0) }
        var routing = InboxRouting(limit: 1 << 20)
        routing.add(.init(from: a, remaining: 10), number: 1)
        XCTAssertEqual(routing.nextBatch(for: 1, entries: entries, reserved: [1], budget: 250).map(\.id), [2, 4])
        XCTAssertEqual(InboxRouting.batch(from: entries, wanted: nil, max: 3, reserved: [], budget: 10_000).map(\.id), [1, 2, 3])
        // One message always goes, however large.
        XCTAssertEqual(InboxRouting.batch(from: entries, wanted: nil, max: 9, reserved: [], budget: 1).map(\.id), [1])
        XCTAssertEqual(routing.nextBatch(for: 2, entries: entries, reserved: [], budget: 1000), [], "not a taker")
    }

    func testRefusalsNameTheLimit() {
        XCTAssertTrue(InboxRouting.Refusal.full(limit: 1000, used: 990).description.contains("--inbox-size"))
        XCTAssertTrue(InboxRouting.Refusal.unpairedShare(limit: 250, used: 250).description.contains("unpaired"))
    }
}
