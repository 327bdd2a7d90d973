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
    func testAFastReaderGrowsTheWindowToTheMaximum() {
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
        XCTAssertEqual(receiver.window, ReceiveWindow.maximum)
        XCTAssertEqual(total, 200 * (64 << 10))
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
}
