import Foundation
import Observation
@testable import PeerKit
import PeerProtocol
import XCTest

/// The UI model: sorted and stable, states by UUID, the selection kept by
/// UUID across re-sorts and a peer leaving and coming back, and an app's
/// own state with each peer.
@MainActor
final class PeerSessionManagerTests: XCTestCase {
    private func row(_ id: UUID, _ name: String, _ state: ConnectionState = .notConnected, apps: [String] = []) -> PeerSnapshot {
        var row = PeerSnapshot(id: id, peerId: nil, name: name, state: state, endpoints: [], info: [:], lastSeen: Date(), lost: false)
        row.apps = apps.isEmpty ? nil : Dictionary(uniqueKeysWithValues: apps.map { ($0, AdvertisedApp(info: [:])) })
        return row
    }

    private func event(_ type: EventKind, _ peer: PeerSnapshot, app: AppStateInfo? = nil) -> PeerEvent {
        .event(ControlEvent(seq: 1, type: type, time: Date(), peer: peer, app: app))
    }

    func testSortedStableAndTheSelectionFollowsTheUUID() async {
        var changes = 0
        let model = PeerSessionManager { _ in changes += 1 }
        let (alpha, bravo, charlie) = (UUID(), UUID(), UUID())
        model.replace([row(charlie, "charlie"), row(alpha, "alpha")])
        XCTAssertEqual(model.peers.map(\.name), ["alpha", "charlie"])
        model.selection = charlie
        model.apply(event(.peerFound, row(bravo, "bravo")))
        XCTAssertEqual(model.peers.map(\.name), ["alpha", "bravo", "charlie"])
        XCTAssertEqual(model.selectedPeer?.name, "charlie", "kept by UUID while it moved")
        model.apply(event(.peerUpdated, row(charlie, "aardvark", .connected)))
        XCTAssertEqual(model.peers.map(\.name), ["aardvark", "alpha", "bravo"], "renamed: re-sorted")
        XCTAssertEqual(model.selectedPeer?.name, "aardvark")
        XCTAssertEqual(model.peerStates[charlie], .connected)
        XCTAssertEqual(model.connected, [charlie])
        model.apply(event(.peerRemoved, row(charlie, "aardvark")))
        XCTAssertNil(model.selectedPeer, "gone from the list")
        XCTAssertEqual(model.selection, charlie, "but still selected, by UUID")
        model.apply(event(.peerFound, row(charlie, "charlie")))
        XCTAssertEqual(model.selectedPeer?.name, "charlie", "back, and selected again")
        XCTAssertEqual(changes, 6, "told once for each change: the rows, the selection, four events")
    }

    func testAnAppsModelShowsTheAppsStateAndDropsPeersThatStopRunningIt() async {
        let model = PeerSessionManager(app: "chat") { _ in }
        let bravo = UUID()
        model.apply(event(.peerFound, row(bravo, "bravo", .connected, apps: ["chat"])))
        XCTAssertEqual(model.peerStates[bravo], .notConnected, "the session is up, but chat is not connected")
        model.apply(event(.appStateChanged, row(bravo, "bravo", .connected, apps: ["chat"]), app: AppStateInfo(app: "chat", state: .connected)))
        XCTAssertEqual(model.connected, [bravo])
        model.apply(event(.appStateChanged, row(bravo, "bravo", .connected, apps: ["chat"]), app: AppStateInfo(app: "clip", state: .notConnected)))
        XCTAssertEqual(model.connected, [bravo], "another app's state changes nothing")
        model.apply(event(.peerUpdated, row(bravo, "bravo", .connected, apps: [])))
        XCTAssertTrue(model.peers.isEmpty, "it stopped running chat")
    }

    func testChangesAreObservable() async {
        let model = PeerSessionManager { _ in }
        let fired = Flag()
        withObservationTracking { _ = model.peers } onChange: { fired.set() }
        XCTAssertFalse(fired.isSet)
        model.replace([row(UUID(), "alpha")])
        XCTAssertTrue(fired.isSet, "a UI that read peers hears they changed")
    }
}

/// Set once by an observation's change handler.
private final class Flag: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}
