import XCTest
@testable import PeerCore

/// Exactly-once decisions as a table (issue 42, point 6).
final class DeliveryMarksTests: XCTestCase {
    private let a = String(repeating: "ab", count: 16)
    private let b = String(repeating: "cd", count: 16)

    func testTable() {
        var marks = DeliveryMarks(stored: [a: QueueTag(epoch: 7, seq: 5)])
        let rows: [(QueueTag, String, DeliveryMarks.Verdict, String)] = [
            (QueueTag(epoch: 7, seq: 4), a, .repeated, "below the mark"),
            (QueueTag(epoch: 7, seq: 5), a, .repeated, "the mark itself"),
            (QueueTag(epoch: 7, seq: 6), a, .new, "past it"),
            (QueueTag(epoch: 8, seq: 1), a, .new, "another epoch: the sender's new file"),
            (QueueTag(epoch: 7, seq: 1), b, .new, "another sender has no mark"),
        ]
        for (tag, sender, verdict, why) in rows { XCTAssertEqual(marks.check(tag, from: sender), verdict, why) }

        // Being stored counts: a repeat arriving meanwhile is dropped.
        marks.storing(QueueTag(epoch: 7, seq: 6), from: a)
        XCTAssertEqual(marks.check(QueueTag(epoch: 7, seq: 6), from: a), .repeated)
        marks.storing(QueueTag(epoch: 7, seq: 7), from: a)
        // A store that fails takes its tag back: the message is new again.
        marks.stored(QueueTag(epoch: 7, seq: 7), from: a, ok: false)
        XCTAssertEqual(marks.check(QueueTag(epoch: 7, seq: 7), from: a), .new)
        marks.stored(QueueTag(epoch: 7, seq: 6), from: a, ok: true)
        XCTAssertEqual(marks.stored[a], QueueTag(epoch: 7, seq: 6))
        XCTAssertEqual(marks.check(QueueTag(epoch: 7, seq: 6), from: a), .repeated)
        // A new epoch replaces the mark.
        marks.storing(QueueTag(epoch: 9, seq: 1), from: a)
        marks.stored(QueueTag(epoch: 9, seq: 1), from: a, ok: true)
        XCTAssertEqual(marks.check(QueueTag(epoch: 7, seq: 3), from: a), .new, "an old epoch's tag is no longer known")
        XCTAssertEqual(marks.check(QueueTag(epoch: 9, seq: 1), from: a), .repeated)
    }
}
