import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// What the reconnect controller sees, set by each test.
@MainActor
private final class FakeReconnectSurroundings: ReconnectSurroundings {
    var sessions: Set<UUID> = []
    var records: [TrustFileRecord] = []
    var rows: [UUID: PeerSnapshot] = [:]

    func hasSession(_ peer: UUID) -> Bool { sessions.contains(peer) }
    var stalledDials: [PeerSession] { [] }
    var paired: [TrustFileRecord] { records }
    func row(_ peer: UUID) -> PeerSnapshot? { rows[peer] }
}

/// The reconnect shell without sockets (netlink is not started): which
/// paired peers its tick says to dial, when, and at which addresses.
final class ReconnectControllerTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 2_000_000)
    private let endpoint = Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 4000)
    private let remembered = Endpoint(interface: "eth0", family: .ipv4, address: "169.254.9.9", port: 4000)

    @MainActor
    private func setUp(enabled: Bool = true) -> (ReconnectController, FakeReconnectSurroundings, UUID) {
        let around = FakeReconnectSurroundings()
        let controller = ReconnectController(enabled: enabled, interfaces: [], surroundings: around, logger: Logger(level: .error),
                                             clock: DaemonClock { [start] in start })
        let peer = UUID()
        var record = TrustFileRecord(publicKey: "ab", peerId: "aa", name: "alpha", uuid: peer, pairedAt: start)
        record.addresses = [remembered]
        around.records = [record]
        return (controller, around, peer)
    }

    private func row(_ peer: UUID, lost: Bool = false, endpoints: [Endpoint]) -> PeerSnapshot {
        var row = PeerSnapshot(id: peer, peerId: "aa", name: "alpha", state: .notConnected, endpoints: endpoints, info: [:], lastSeen: start, lost: lost)
        row.paired = true
        return row
    }

    private func described(_ dials: [PairedDial]) -> [String] {
        dials.map { "\($0.peerID)@\($0.endpoints.map(\.address).joined(separator: ","))" }
    }

    @MainActor
    func testDialsAtTheBackoffAndAtTheNextTickWhenThePeerAppears() async {
        let (controller, around, peer) = setUp()
        XCTAssertEqual(described(controller.tick(now: start)), ["aa@169.254.9.9"], "no row: the last known addresses")
        XCTAssertEqual(controller.tick(now: start.addingTimeInterval(0.1)), [], "not again before the backoff")
        around.rows[peer] = row(peer, lost: true, endpoints: [])
        XCTAssertEqual(controller.tick(now: start.addingTimeInterval(0.2)), [], "a lost row is no appearance")
        around.rows[peer] = row(peer, endpoints: [endpoint])
        XCTAssertEqual(described(controller.tick(now: start.addingTimeInterval(0.3))), ["aa@169.254.1.2"],
                       "appearing: dialled at the next tick, at the advertised address, not at the backoff")
        XCTAssertEqual(controller.tick(now: start.addingTimeInterval(0.4)), [], "still present: no new appearance")
    }

    @MainActor
    func testABusyPeerWaitsThirtySecondsOrUntilThereIsRoom() async {
        let (controller, around, peer) = setUp()
        around.rows[peer] = row(peer, endpoints: [endpoint])
        controller.refusedAsBusy(peer, now: start)
        XCTAssertEqual(controller.tick(now: start.addingTimeInterval(29)), [], "paused after busy")
        XCTAssertTrue(controller.wasRefusedAsBusy(peer))
        controller.inboxHasRoom()
        XCTAssertFalse(controller.wasRefusedAsBusy(peer))
        XCTAssertEqual(described(controller.tick(now: start.addingTimeInterval(29.5))), ["aa@169.254.1.2"], "a client took messages: dialled again")
    }

    @MainActor
    func testNothingIsDialledWhenDisabledOrConnected() async {
        let (disabled, _, _) = setUp(enabled: false)
        XCTAssertEqual(disabled.tick(now: start), [])
        let (connected, around, peer) = setUp()
        around.sessions = [peer]
        XCTAssertEqual(connected.tick(now: start), [])
    }
}
