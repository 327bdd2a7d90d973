import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO

/// The reconnect shell without sockets (netlink is not started): which
/// paired peers it dials, when, and at which addresses.
final class ReconnectControllerTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 2_000_000)
    private let endpoint = Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 4000)
    private let remembered = Endpoint(interface: "eth0", family: .ipv4, address: "169.254.9.9", port: 4000)

    @MainActor
    private func setUp(enabled: Bool = true) -> (ReconnectController, UUID, () -> [String]) {
        let controller = ReconnectController(enabled: enabled, interfaces: [], logger: Logger(level: .error), clock: DaemonClock { [start] in start })
        let peer = UUID()
        var record = TrustRecord(publicKey: "ab", peerId: "aa", name: "alpha", uuid: peer, pairedAt: start)
        record.addresses = [remembered]
        var dials: [String] = []
        controller.paired = { [record] }
        controller.hasSession = { _ in false }
        controller.dial = { _, endpoints, peerID in dials.append("\(peerID)@\(endpoints.map(\.address).joined(separator: ","))") }
        return (controller, peer, { dials })
    }

    private func row(_ peer: UUID, lost: Bool = false, endpoints: [Endpoint]) -> PeerSnapshot {
        var row = PeerSnapshot(id: peer, peerId: "aa", name: "alpha", state: .notConnected, endpoints: endpoints, info: [:], lastSeen: start, lost: lost)
        row.paired = true
        return row
    }

    @MainActor
    func testDialsAtTheBackoffAndAtOnceWhenThePeerAppears() async {
        let (controller, peer, dials) = setUp()
        controller.row = { _ in nil }
        controller.tick(now: start)
        XCTAssertEqual(dials(), ["aa@169.254.9.9"], "no row: the last known addresses")
        controller.tick(now: start.addingTimeInterval(0.1))
        XCTAssertEqual(dials().count, 1, "not again before the backoff")
        controller.row = { [self] _ in self.row(peer, endpoints: [self.endpoint]) }
        controller.appeared(row(peer, endpoints: [endpoint]), now: start.addingTimeInterval(0.2))
        XCTAssertEqual(dials().last, "aa@169.254.1.2", "appearing: at once, at the advertised address")
    }

    @MainActor
    func testABusyPeerWaitsThirtySecondsOrUntilThereIsRoom() async {
        let (controller, peer, dials) = setUp()
        controller.row = { [self] _ in self.row(peer, endpoints: [self.endpoint]) }
        controller.refusedAsBusy(peer, now: start)
        controller.tick(now: start.addingTimeInterval(29))
        XCTAssertEqual(dials(), [], "paused after busy")
        XCTAssertTrue(controller.wasRefusedAsBusy(peer))
        controller.inboxHasRoom()
        XCTAssertFalse(controller.wasRefusedAsBusy(peer))
        controller.tick(now: start.addingTimeInterval(29.5))
        XCTAssertEqual(dials(), ["aa@169.254.1.2"], "a client took messages: dialled again")
    }

    @MainActor
    func testNothingIsDialledWhenDisabledOrConnected() async {
        let (disabled, _, disabledDials) = setUp(enabled: false)
        disabled.tick(now: start)
        XCTAssertEqual(disabledDials(), [])
        let (connected, _, connectedDials) = setUp()
        connected.hasSession = { _ in true }
        connected.tick(now: start)
        XCTAssertEqual(connectedDials(), [])
    }
}
