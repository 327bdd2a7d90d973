import Foundation
import XCTest
@testable import PeerCore

final class StreamCreditTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 0)

    /// A slow reader keeps the window at 256 KiB; the sender stops at it.
    func testASlowReaderHoldsItsStreamBackAndKeepsTheWindowSmall() {
        var receiver = ReceiveWindow()
        var sender = SendCredit()
        var now = start
        for _ in 0..<10 {
            let sent = sender.take(1 << 20)
            XCTAssertLessThanOrEqual(sent, ReceiveWindow.initial, "never more than one window in flight")
            XCTAssertTrue(receiver.received(sent, now: now))
            XCTAssertEqual(sender.take(1), 0, "no credit until the reader consumes")
            now += 1   // a second per window: slow
            if let credit = receiver.consumed(sent, now: now) { XCTAssertTrue(sender.grant(credit)) }
        }
        XCTAssertEqual(receiver.window, ReceiveWindow.initial)
    }

    /// A fast reader grows the window to the maximum, and no further.
    func testAFastReaderGrowsTheWindowToItsOwnLimit() {
        var receiver = ReceiveWindow()
        var sender = SendCredit()
        var now = start
        var total = 0
        for _ in 0..<200 {
            let sent = sender.take(64 << 10)
            guard sent > 0 else { XCTFail("a fast reader never runs out of credit"); return }
            XCTAssertTrue(receiver.received(sent, now: now))
            now += 0.001
            if let credit = receiver.consumed(sent, now: now) { XCTAssertTrue(sender.grant(credit)) }
            total += sent
        }
        XCTAssertEqual(receiver.window, ReceiveWindow.grownLimit, "grown to this receiver's limit, no further")
        XCTAssertEqual(total, 200 * (64 << 10))
    }

    /// Issue 25: a file's window stays at 256 KiB however fast its reader;
    /// a limit outside the wire's range is clamped to it.
    func testAFileWindowDoesNotGrowAndLimitsAreClamped() {
        for (limit, grows) in [(ReceiveWindow.fileLimit, ReceiveWindow.initial), (1, ReceiveWindow.initial),
                               (1 << 30, ReceiveWindow.maximum), (ReceiveWindow.grownLimit, ReceiveWindow.grownLimit)] {
            var receiver = ReceiveWindow(limit: limit)
            var sender = SendCredit()
            var now = start
            for _ in 0..<400 {
                let sent = sender.take(64 << 10)
                XCTAssertTrue(receiver.received(sent, now: now))
                now += 0.0001
                if let credit = receiver.consumed(sent, now: now) { XCTAssertTrue(sender.grant(credit), "limit \(limit)") }
            }
            XCTAssertEqual(receiver.window, grows, "limit \(limit)")
            XCTAssertEqual(receiver.limit, grows, "limit \(limit), as kept")
        }
        XCTAssertEqual(ReceiveWindow.fileLimit, 256 << 10)
    }

    /// The wire's largest window and this receiver's own limit are pinned:
    /// an earlier release's peer grows to 4 MiB, and a sender here must
    /// take its credit (issue 25 lowered only what this receiver grants).
    func testTheWireLimitStaysWhereEarlierReleasesPutIt() {
        XCTAssertEqual(ReceiveWindow.maximum, 4 << 20)
        XCTAssertEqual(ReceiveWindow.grownLimit, 512 << 10)
        var sender = SendCredit()
        XCTAssertTrue(sender.grant(ReceiveWindow.maximum - ReceiveWindow.initial), "a 0.2.0 receiver's full window is taken")
        XCTAssertFalse(sender.grant(1), "past 4 MiB in flight")
    }

    func testBytesBeyondTheCreditAndOversizedGrantsAreProtocolErrors() {
        var receiver = ReceiveWindow()
        XCTAssertFalse(receiver.received(ReceiveWindow.initial + 1, now: start))
        XCTAssertTrue(receiver.received(ReceiveWindow.initial, now: start))
        XCTAssertFalse(receiver.received(1, now: start))
        var sender = SendCredit()
        XCTAssertFalse(sender.grant(ReceiveWindow.maximum), "past the largest window")
        XCTAssertFalse(sender.grant(-1))
        XCTAssertEqual(sender.take(-5), 0)
    }

    /// Issue 44: a file's window on a bulk lane may grow to the wire's
    /// 4 MiB once its bytes come there, never past it, never shrinking a
    /// limit already wider; the sender accepts every credit it gives.
    func testAFileWindowWidenedForALaneGrowsToTheWiresLimit() {
        var receiver = ReceiveWindow(limit: ReceiveWindow.fileLimit)
        receiver.widen(to: ReceiveWindow.laneLimit)
        XCTAssertEqual(receiver.limit, ReceiveWindow.maximum)
        receiver.widen(to: ReceiveWindow.initial)
        XCTAssertEqual(receiver.limit, ReceiveWindow.maximum, "a widened limit never shrinks")
        var sender = SendCredit()
        var now = start
        for _ in 0..<400 {
            let sent = sender.take(64 << 10)
            XCTAssertTrue(receiver.received(sent, now: now))
            now += 0.0001
            if let credit = receiver.consumed(sent, now: now) { XCTAssertTrue(sender.grant(credit)) }
        }
        XCTAssertEqual(receiver.window, ReceiveWindow.maximum)
        var wide = ReceiveWindow(limit: ReceiveWindow.grownLimit)
        wide.widen(to: 1 << 30)
        XCTAssertEqual(wide.limit, ReceiveWindow.maximum, "clamped to the wire's limit")
    }
}
