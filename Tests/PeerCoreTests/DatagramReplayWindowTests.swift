import XCTest
@testable import PeerCore

/// The datagram replay window (issue 26), as tables of counters and verdicts.
final class DatagramReplayWindowTests: XCTestCase {
    /// Each row: a counter, what `check` says, and whether `accept` takes it.
    private func run(_ rows: [(UInt64, DatagramReplayWindow.Verdict)], line: UInt = #line) -> DatagramReplayWindow {
        var window = DatagramReplayWindow()
        for (counter, verdict) in rows {
            XCTAssertEqual(window.check(counter), verdict, "counter \(counter)", line: line)
            XCTAssertEqual(window.accept(counter), verdict == .fresh, "accept \(counter)", line: line)
        }
        return window
    }

    func testInOrderDuplicatesAndReordering() {
        let window = run([
            (0, .fresh), (1, .fresh), (1, .duplicate), (3, .fresh), (2, .fresh), (2, .duplicate), (0, .duplicate),
            (100, .fresh), (50, .fresh), (50, .duplicate), (99, .fresh), (100, .duplicate),
        ])
        XCTAssertEqual(window.highest, 100)
    }

    func testTheEdgeOfTheWindow() {
        let size = DatagramReplayWindow.size
        XCTAssertEqual(size, 1_984, "the bitmap's 2,048 bits less one word")
        let top: UInt64 = 10_000
        _ = run([
            (top, .fresh),
            (top - size + 1, .fresh), (top - size + 1, .duplicate),
            (top - size, .tooOld), (top - size - 1, .tooOld), (0, .tooOld),
        ])
    }

    func testAJumpAheadForgetsWhatTheWindowLeft() {
        // Seen 5 and 70; a jump of a whole window and more clears the bitmap,
        // and a counter between the old and the new highest is fresh if the
        // window still covers it.
        let size = DatagramReplayWindow.size
        _ = run([
            (5, .fresh), (70, .fresh), (70 + size * 3, .fresh), (70, .tooOld),
            (70 + size * 3 - 1, .fresh), (70 + size * 2 + 100, .fresh), (70 + size * 2 + 100, .duplicate),
        ])
    }

    /// Every counter the window moves past a word at a time: what it saw a
    /// lap of the ring ago never shows as seen now (the ring's slots are
    /// cleared as the window enters them).
    func testNoStaleBitsAfterLapsOfTheRing() {
        var window = DatagramReplayWindow()
        for counter in stride(from: UInt64(0), to: 20_000, by: 3) { XCTAssertTrue(window.accept(counter)) }
        let top = window.highest!
        for counter in (top - DatagramReplayWindow.size + 1)...top {
            XCTAssertEqual(window.check(counter), counter % 3 == 0 ? .duplicate : .fresh, "counter \(counter)")
        }
    }

    func testTheLastCounterIsNeverTaken() {
        _ = run([(UInt64.max - 1, .fresh), (UInt64.max, .exhausted), (UInt64.max - 2, .fresh)])
    }

    /// Verdicts are named in `peer`'s drop counts: the names are pinned.
    func testVerdictNamesArePinned() {
        XCTAssertEqual([DatagramReplayWindow.Verdict.fresh, .duplicate, .tooOld, .exhausted].map(\.rawValue),
                       ["fresh", "duplicate", "tooOld", "exhausted"])
    }
}
