import XCTest
@testable import PeerCore
import PeerProtocol

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

/// A subscriber in an app (``AppEventFilter``): events about peers that
/// run it, one more when a peer stops, events about no peer, and the
/// app's own events alone.
final class AppEventFilterTests: XCTestCase {
    private func row(_ id: UUID, apps: [String]) -> PeerSnapshot {
        var row = PeerSnapshot(id: id, peerId: nil, name: "p", state: .notConnected, endpoints: [], info: [:], lastSeen: Date(), lost: false)
        row.apps = apps.isEmpty ? nil : Dictionary(uniqueKeysWithValues: apps.map { ($0, AdvertisedApp(info: [:])) })
        return row
    }

    func testEventsAboutPeersThatRunTheAppHadItOrNoPeer() {
        var filter = AppEventFilter(app: "chat")
        let alpha = UUID(), bravo = UUID()
        let now = Date()
        XCTAssertFalse(filter.passes(ControlEvent(seq: 1, type: .peerFound, time: now, peer: row(bravo, apps: ["clip"]))), "a peer without chat")
        XCTAssertTrue(filter.passes(ControlEvent(seq: 2, type: .peerFound, time: now, peer: row(alpha, apps: ["chat"]))))
        XCTAssertTrue(filter.passes(ControlEvent(seq: 3, type: .peerUpdated, time: now, peer: row(alpha, apps: []))), "the update that drops chat")
        XCTAssertFalse(filter.passes(ControlEvent(seq: 4, type: .peerUpdated, time: now, peer: row(alpha, apps: []))), "and nothing after it")
        XCTAssertTrue(filter.passes(ControlEvent(seq: 5, type: .error, time: now)), "an event about no peer")
        XCTAssertTrue(filter.passes(ControlEvent(seq: 6, type: .appStateChanged, time: now, peer: row(bravo, apps: []), app: AppStateInfo(app: "chat", state: .connected))))
        XCTAssertFalse(filter.passes(ControlEvent(seq: 7, type: .appStateChanged, time: now, peer: row(alpha, apps: ["chat"]), app: AppStateInfo(app: "clip", state: .connected))),
                       "another app's event, about a peer that runs chat too")
        let invitation = InvitationInfo(id: "i", peer: alpha, name: "p", peerId: "", context: "", expires: now)
        XCTAssertFalse(filter.passes(ControlEvent(seq: 8, type: .invitation, time: now, peer: row(alpha, apps: ["chat"]), invitation: invitation)),
                       "the default app's invitation, from a peer that runs chat")
        var chats = invitation
        chats.app = "chat"
        XCTAssertTrue(filter.passes(ControlEvent(seq: 9, type: .invitation, time: now, peer: row(alpha, apps: ["chat"]), invitation: chats)))
    }
}
