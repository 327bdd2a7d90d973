import XCTest
@testable import PeerCore

/// Per-app queues and inboxes, without I/O: queue keys and their store
/// names, the flow of one app's refused messages, and the inbox shares.
final class AppQueueTests: XCTestCase {
    private let chat = try! AppName("chat")
    private let peerID = String(repeating: "ab", count: 16)

    func testStoreNamesRoundTrip() {
        XCTAssertEqual(QueueKey.storeName(peerID: peerID, app: .none), peerID)
        XCTAssertEqual(QueueKey.storeName(peerID: peerID, app: chat), peerID + ".chat")
        XCTAssertEqual(QueueKey.parse(storeName: peerID + ".chat")?.app, chat)
        XCTAssertEqual(QueueKey.parse(storeName: peerID)?.app, AppName.none)
        XCTAssertNil(QueueKey.parse(storeName: peerID + ".Bad_Name"))
    }

    func testRefusedMessagesLeaveTheFlowAndAcksCountOnlyTheRest() {
        let peer = UUID()
        let key = QueueKey(peer: peer, app: chat)
        var flow = QueueFlow()
        for number: UInt64 in [2, 4, 6, 8] { flow.sent(number, of: key) }
        flow.sent(3, to: peer)
        XCTAssertEqual(flow.refused(from: 6, of: key), 2)
        XCTAssertEqual(flow.inFlightCount(key), 2, "the next read skips only the two delivered ones")
        XCTAssertEqual(flow.acknowledged(through: 10, of: key), 2, "an ack past the refused ones removes only those before them")
        XCTAssertEqual(flow.acknowledged(through: 10, by: peer), 1, "the default app's queue is its own")
        flow.sent(1, of: key)
        flow.sessionEnded(peer)
        XCTAssertEqual(flow.inFlightCount(key), 0)
    }

    func testEachAppHasAQuarterAndAllAppsTogetherTheWhole() {
        let share = AppInboxShare(limit: 1000)
        XCTAssertEqual(share.perApp, 250)
        XCTAssertNil(share.refusal(size: 10, appsBytes: 900))
        XCTAssertNotNil(share.refusal(size: 100, appsBytes: 900))
    }

    func testConfirmedAppsAreMarkedAndClaimsStayClaims() {
        let merged = AdvertisedApp.merge(advertised: ["chat": AdvertisedApp(info: ["v": "1"]), "clip": AdvertisedApp(info: [:])], confirmed: ["chat", "game"])
        XCTAssertEqual(merged?["chat"], AdvertisedApp(info: ["v": "1"], confirmed: true))
        XCTAssertEqual(merged?["clip"]?.confirmed, false)
        XCTAssertEqual(merged?["game"], AdvertisedApp(info: [:], confirmed: true))
        XCTAssertNil(AdvertisedApp.merge(advertised: nil, confirmed: []))
    }

    func testATrafficRequestActsOnlyForAnAppItsConnectionHolds() {
        var params = ControlParams()
        XCTAssertEqual(try AppRequestRules.trafficApp(.send, params) { _ in false }.get(), AppName.none)
        params.app = "chat"
        XCTAssertEqual(try AppRequestRules.trafficApp(.send, params) { $0 == self.chat }.get(), chat)
        guard case .failure(let error) = AppRequestRules.trafficApp(.take, params, holds: { _ in false }) else { return XCTFail() }
        XCTAssertEqual(error.code, .permissionDenied)
        params.app = "Chat"
        guard case .failure(let bad) = AppRequestRules.trafficApp(.take, params, holds: { _ in true }) else { return XCTFail() }
        XCTAssertEqual(bad.code, .invalidParams)
    }
}
