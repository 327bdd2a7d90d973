import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// The read model, without sockets: it keeps the identity actor's rows,
/// lays session state, trust and presence over them, and says each change
/// once, as one event.
final class PeerDirectoryTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    private func row(_ id: UUID, _ name: String, peerID: String? = "aa", lost: Bool = false) -> PeerSnapshot {
        PeerSnapshot(id: id, peerId: peerID, name: name, state: .connected, endpoints: [], info: [:], lastSeen: start, lost: lost)
    }

    @MainActor
    func testChangesBecomeEventsAndStateIsTheDirectorysOwn() async {
        var events: [(EventKind, String, ConnectionState?, CloseReason?)] = []
        let directory = PeerDirectory(logger: Logger(level: .error), maxPeers: 10, maxUnverifiedPeers: 10, clock: DaemonClock { [start] in start },
                                      isPaired: { $0 == "aa" }, emit: { events.append(($0.type, $0.peer?.name ?? "-", $0.peer?.state, $0.reason)) })
        let id = UUID(), other = UUID()
        directory.apply([.found(row(id, "alpha")), .found(row(other, "beta", peerID: "bb"))])
        // The actor's copy of the state is not believed: the directory owns it.
        XCTAssertEqual(directory.row(id)?.state, .notConnected)
        XCTAssertEqual(directory.row(id)?.paired, true)
        XCTAssertEqual(directory.row(other)?.paired, false)
        directory.setState(.connecting, for: id, reason: nil)
        directory.setState(.connecting, for: id, reason: nil)   // no change, no event
        directory.setState(.connected, for: id, reason: nil)
        XCTAssertEqual(directory.connectedCount, 1)
        directory.apply([.updated(row(id, "alpha2"))])
        XCTAssertEqual(directory.row(id)?.state, .connected, "an update keeps the session state")
        directory.setState(.notConnected, for: id, reason: .closedByPeer)
        directory.apply([.lost(row(other, "beta", peerID: "bb", lost: true)), .evicted(row(other, "beta", peerID: "bb"))])
        XCTAssertNil(directory.row(other))
        XCTAssertEqual(directory.all.map(\.name), ["alpha2"])
        XCTAssertEqual(events.map { "\($0.0.rawValue) \($0.1) \($0.2?.rawValue ?? "-") \($0.3?.rawValue ?? "-")" }, [
            "peerFound alpha notConnected -",
            "peerFound beta notConnected -",
            "stateChanged alpha connecting -",
            "stateChanged alpha connected -",
            "peerUpdated alpha2 connected -",
            "stateChanged alpha2 notConnected closedByPeer",
            "peerLost beta notConnected -",
            "peerRemoved beta connected -",
        ])
    }

    @MainActor
    func testSeededRowsComeFirstAndAreNotReplacedBySeedingAgain() async {
        var emitted = 0
        let directory = PeerDirectory(logger: Logger(level: .error), maxPeers: 10, maxUnverifiedPeers: 10, clock: DaemonClock { [start] in start },
                                      isPaired: { _ in false }, emit: { _ in emitted += 1 })
        let id = UUID()
        directory.seed([row(id, "paired")])
        directory.seed([row(id, "renamed")])
        XCTAssertEqual(directory.row(id)?.name, "paired")
        XCTAssertEqual(emitted, 0, "seeding is not news")
        XCTAssertEqual(directory.row(peerID: "aa")?.id, id)
    }

    @MainActor
    func testRejectionsAreCountedAndLoggedSparingly() async {
        let directory = PeerDirectory(logger: Logger(level: .error), maxPeers: 1, maxUnverifiedPeers: 1, clock: DaemonClock { [start] in start }, isPaired: { _ in false }, emit: { _ in })
        for n in 0..<5 { directory.apply([.rejectedAtCap(.instanceName("svc\(n)"), unverified: false)]) }
        XCTAssertEqual(directory.rejectedCount, 5)
        XCTAssertTrue(directory.all.isEmpty)
    }
}
