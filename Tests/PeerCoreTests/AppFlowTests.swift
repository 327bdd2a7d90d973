import XCTest
@testable import PeerCore
import PeerProtocol

/// One session's per-app flow (``AppFlow``), both ways, as a table: one
/// app's refusal holds that app alone, is said once, and is lifted only by
/// the sender's retry after the receiver's ready.
final class AppFlowTests: XCTestCase {
    private let chat = try! AppName("chat")
    private let clip = try! AppName("clip")

    func testTheReceiverRefusesAnAppUntilThePeerRetries() {
        var flow = AppFlow()
        XCTAssertTrue(flow.takes(chat))
        XCTAssertTrue(flow.refused(chat), "the first refusal is told (appBusy)")
        XCTAssertFalse(flow.refused(chat), "later ones are not")
        XCTAssertFalse(flow.takes(chat), "what the peer sent before it heard is refused too")
        XCTAssertTrue(flow.takes(clip), "another app flows")
        XCTAssertEqual(flow.refusedApps, [chat])
        XCTAssertFalse(flow.peerRetried(chat), "a retry before ready is a protocol error")
        XCTAssertTrue(flow.room(chat), "room: appReady goes")
        XCTAssertFalse(flow.room(chat), "once")
        XCTAssertFalse(flow.takes(chat), "still refused until the retry marks where the sender starts again")
        XCTAssertTrue(flow.peerRetried(chat))
        XCTAssertTrue(flow.takes(chat))
        XCTAssertFalse(flow.room(chat), "no ready for an app that was not refused")
    }

    func testTheSenderHoldsAnAppUntilReady() {
        var flow = AppFlow()
        XCTAssertNil(flow.heldBy(chat))
        flow.peerBusy(chat, "full")
        XCTAssertEqual(flow.heldBy(chat), "full")
        XCTAssertNil(flow.heldBy(clip))
        XCTAssertTrue(flow.peerReady(chat), "ready: appRetry goes")
        XCTAssertNil(flow.heldBy(chat))
        XCTAssertFalse(flow.peerReady(chat), "a second ready sends no second retry")
    }
}
