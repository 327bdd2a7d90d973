import FoundationEssentials
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// Wide-area DNS-SD end to end on loopback (issue 46): a publishing
/// coordinator and a browsing one, each with its own identity actor and
/// lane, through a real Knot DNS. The browser's row comes from the
/// publisher's records, with its display name's case and `dns:` source;
/// the publisher's stop removes them and the row is lost; status says
/// what happened.
final class WideAreaCoordinatorTests: XCTestCase {
    private var server: KnotServer!

    override func setUpWithError() throws { server = try KnotServer() }
    override func tearDown() { server?.stop() }

    @MainActor
    private final class Side {
        let coordinator: WideAreaCoordinator
        let lane = IdentityLane()
        var changes: [PeerChange] = []
        var runner: Task<Void, Never>?

        init(name: String, peerID: String, key: TSIGKey?, port: UInt16) {
            let identity = IdentityActor(maxPeers: 16, maxUnverified: 16)
            let settings = WideAreaSettings(domain: DNSName(dotted: "peers.example")!, server: DNSServerAddress("127.0.0.1:\(port)"),
                                                        key: key, ttl: 30, poll: 0.1, maxInstances: 16)
            var box: Side?
            coordinator = WideAreaCoordinator(settings: settings, identity: identity, lane: lane, logger: Logger(level: .error), clock: .system,
                                              ownPeerID: peerID, name: name, serviceType: "_peerd._tcp", port: 7717,
                                              txt: [TXTEntry(key: "txtvers", value: "1"), TXTEntry(key: "id", value: peerID)],
                                              protectedRows: { [] }, onChanges: { box?.changes += $0 }, recount: {})
            box = self
            let lane = self.lane, coordinator = self.coordinator
            runner = Task { @MainActor in
                await withDiscardingTaskGroup { group in
                    group.addTask { await lane.run() }
                    group.addTask { await coordinator.pump() }
                }
            }
            coordinator.start()
        }

        func stop() {
            coordinator.shutdown()
            lane.finish()
        }
    }

    @MainActor
    func testOneCoordinatorFindsWhatTheOtherPublishes() async throws {
        let key = TSIGKey(name: KnotServer.keyName, algorithm: .hmacSHA256, secret: Array(Data(base64Encoded: KnotServer.secret)!))
        let alpha = String(repeating: "a", count: 32), beta = String(repeating: "b", count: 32)
        let publisher = Side(name: "Alpha One", peerID: alpha, key: key, port: server.port)
        let browser = Side(name: "beta", peerID: beta, key: nil, port: server.port)
        defer { browser.stop() }
        let found = try await eventually(10) { browser.changes.contains { if case .found(let row) = $0 { row.peerId == alpha } else { false } } }
        XCTAssertTrue(found, "the browser did not find the publisher: \(browser.changes), \(publisher.coordinator.status)")
        guard case .found(let row)? = browser.changes.first(where: { if case .found = $0 { true } else { false } }) else { return }
        XCTAssertEqual(row.name, "Alpha One", "the TXT's name keeps the case Knot lowers")
        XCTAssertEqual(row.sources, ["dns:peers.example"])
        XCTAssertEqual(publisher.coordinator.status.publication, "published")
        XCTAssertEqual(publisher.coordinator.status.lastUpdate, "applied")
        XCTAssertEqual(browser.coordinator.status.publication, "off")
        XCTAssertEqual(browser.coordinator.status.server, "127.0.0.1:\(server.port)")
        XCTAssertEqual(browser.coordinator.status.peers, 1, "its own record (none: no key) and no other")

        publisher.stop()
        let lost = try await eventually(10) { browser.changes.contains { if case .lost(let row) = $0 { row.peerId == alpha } else { false } } }
        XCTAssertTrue(lost, "the publisher's stop did not remove its records: \(browser.changes)")
    }

    /// Two hosts asking for one name: the second is renamed as on mDNS
    /// (`Name #2`), and a browser lists both under their own names.
    @MainActor
    func testASecondHostWithTheSameNameIsRenamed() async throws {
        let key = TSIGKey(name: KnotServer.keyName, algorithm: .hmacSHA256, secret: Array(Data(base64Encoded: KnotServer.secret)!))
        let first = Side(name: "Office", peerID: String(repeating: "c", count: 32), key: key, port: server.port)
        defer { first.stop() }
        let published = try await eventually(10) { first.coordinator.status.publication == "published" }
        XCTAssertTrue(published, "\(first.coordinator.status)")
        let second = Side(name: "Office", peerID: String(repeating: "d", count: 32), key: key, port: server.port)
        defer { second.stop() }
        let renamed = try await eventually(10) { second.coordinator.status.publication == "published" }
        XCTAssertTrue(renamed, "\(second.coordinator.status)")
        XCTAssertEqual(second.coordinator.status.name, "Office #2")
        XCTAssertEqual(first.coordinator.status.name, "Office")
        let both = try await eventually(10) {
            Set(second.changes.compactMap { if case .found(let row) = $0 { row.name } else { nil } }) == ["Office"]
                && Set(first.changes.compactMap { if case .found(let row) = $0 { row.name } else { nil } }) == ["Office #2"]
        }
        XCTAssertTrue(both, "each lists the other under its own name: \(first.changes), \(second.changes)")
    }

    /// The link alone: no server is an answer in the stream, not a hang.
    func testTheLinkSaysWhenNoServerAnswers() async throws {
        let (stream, continuation) = AsyncStream.makeStream(of: WideAreaBridgeEvent.self)
        let link = WideAreaLink(continuation: continuation)
        link.connect(domain: DNSName(dotted: "peers.example")!, server: .given(address: "127.0.0.1", port: 9))
        link.drain()
        link.finish()
        var events: [WideAreaBridgeEvent] = []
        for await event in stream { events.append(event) }
        guard case .unreachable(let why)? = events.first, events.count == 1 else { return XCTFail("\(events)") }
        XCTAssertTrue(why.contains("find the zone of peers.example") || why.contains("query soa"), why)
    }
}
