import Foundation
import XCTest
@testable import PeerCore

final class EventJournalTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 0)

    func testSequenceNumbersIncreaseFromOne() {
        var journal = EventJournal(capacity: 4)
        let seqs = (0..<3).map { _ in journal.append(.peerFound, peer: nil, time: now).seq }
        XCTAssertEqual(seqs, [1, 2, 3])
        XCTAssertEqual(journal.lastSeq, 3)
    }

    func testReplayAfterSince() {
        var journal = EventJournal(capacity: 4)
        for _ in 0..<3 { _ = journal.append(.peerUpdated, peer: nil, time: now) }
        let replay = journal.events(after: 1)
        XCTAssertEqual(replay.events.map(\.seq), [2, 3])
        XCTAssertFalse(replay.truncated)
        XCTAssertEqual(journal.events(after: 3).events, [])
    }

    func testWrapKeepsNewestAndReportsGap() {
        var journal = EventJournal(capacity: 3)
        for _ in 0..<7 { _ = journal.append(.peerLost, peer: nil, time: now) }
        let all = journal.events(after: 0)
        XCTAssertEqual(all.events.map(\.seq), [5, 6, 7])
        XCTAssertTrue(all.truncated, "events 1-4 are gone")
        XCTAssertFalse(journal.events(after: 4).truncated)
        XCTAssertTrue(journal.events(after: 3).truncated)
    }
}
