import FoundationEssentials
import XCTest
@testable import PeerCore
import PeerProtocol

/// The wide-area browser (issue 46) as a table of answers in, actions out:
/// the serial decides when the list is read, each new name is resolved
/// once, a lease that ends or a pointer that goes is a removal, the cap
/// holds a flood, and this host's own record is never a peer.
final class WideAreaBrowserTests: XCTestCase {
    private let domain = DNSName(dotted: "peers.example")!
    private let other = String(repeating: "b", count: 32)
    private let own = String(repeating: "a", count: 32)
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func browser(max: Int = 8) -> WideAreaBrowser {
        WideAreaBrowser(domain: domain, serviceType: "_peerd._tcp", ownPeerID: own, maxInstances: max, poll: 0.5, relist: 60)
    }

    private func instance(id: String, lease: UInt64?, name: String? = nil, address: String = "10.0.2.2") -> WideAreaInstance {
        var txt = ["id=\(id)", "v=3"]
        if let name { txt.append("name=\(name)") }
        if let lease { txt.append("lease=\(lease)") }
        return WideAreaInstance(port: 7717, target: DNSName(dotted: "peerd-b.peers.example")!, txt: txt.map { Array($0.utf8) },
                                addresses: [.init(family: .ipv4, text: address)], ttl: 30)
    }

    private func key(_ name: String) -> ServiceKey {
        ServiceKey(interfaceIndex: ServiceKey.wideAreaInterface, family: .ipv4, name: name, type: "_peerd._tcp", domain: "peers.example")
    }

    func testASerialChangeListsAndANewNameIsResolvedOnce() {
        var b = browser()
        XCTAssertEqual(b.tick(now: t0), [.querySerial])
        XCTAssertEqual(b.tick(now: t0), [], "one serial query at a time")
        XCTAssertEqual(b.serial(5, now: t0), [.list(DNSName(dotted: "_peerd._tcp.peers.example")!)])
        XCTAssertEqual(b.listed(["office"], now: t0), [.resolve("office")])
        let lease = UInt64(t0.timeIntervalSince1970) + 30
        let found = b.resolved("office", instance(id: other, lease: lease, name: "Office"), now: t0)
        guard case .discovery(.resolved(let service))? = found.first, found.count == 1 else { return XCTFail("\(found)") }
        XCTAssertEqual(service.key, key("Office"), "the TXT's name keeps its case; the key is wide-area's")
        XCTAssertEqual(service.endpoint, Endpoint(interface: "", family: .ipv4, address: "10.0.2.2", port: 7717))
        XCTAssertEqual(service.advertisedPeerID, other)
        XCTAssertFalse(service.txt.contains { $0.key == "lease" || $0.key == "name" }, "lease and name are wide-area's, not the peer's info")
        XCTAssertEqual(b.peerCount, 1)
        // The same serial again: no list; the poll goes on.
        XCTAssertEqual(b.tick(now: t0.addingTimeInterval(1)), [.querySerial])
        XCTAssertEqual(b.serial(5, now: t0.addingTimeInterval(1)), [])
        // At the lease's end it is looked at again; unchanged, nothing is said.
        let later = t0.addingTimeInterval(30)
        XCTAssertEqual(b.tick(now: later), [.querySerial, .resolve("office")])
        XCTAssertEqual(b.resolved("office", instance(id: other, lease: lease + 30, name: "Office"), now: later), [])
    }

    func testALeaseThatEndsOrAPointerThatGoesIsARemoval() {
        var b = browser()
        _ = b.tick(now: t0)
        _ = b.serial(1, now: t0)
        _ = b.listed(["a", "b"], now: t0)
        let lease = UInt64(t0.timeIntervalSince1970) + 10
        XCTAssertEqual(b.resolved("a", instance(id: other, lease: lease), now: t0).count, 1)
        XCTAssertEqual(b.resolved("b", instance(id: String(repeating: "c", count: 32), lease: nil, address: "10.0.3.3"), now: t0).count, 1)
        // a's host was killed: its lease passes with the same record.
        let after = t0.addingTimeInterval(11)
        XCTAssertTrue(b.tick(now: after).contains(.resolve("a")))
        XCTAssertEqual(b.resolved("a", instance(id: other, lease: lease), now: after), [.discovery(.removed(key("a")))])
        // b stopped: its pointer went, and the serial changed.
        XCTAssertEqual(b.serial(2, now: after), [.list(DNSName(dotted: "_peerd._tcp.peers.example")!)])
        XCTAssertEqual(b.listed(["a"], now: after), [.discovery(.removed(key("b")))])
        XCTAssertEqual(b.stop(), [], "a is followed but found nothing")
    }

    func testTheCapHoldsAFloodAndOurOwnRecordIsNoPeer() {
        var b = browser(max: 2)
        _ = b.tick(now: t0)
        _ = b.serial(1, now: t0)
        let actions = b.listed(["x1", "x2", "x3", "x4"], now: t0)
        XCTAssertEqual(actions.filter { if case .resolve = $0 { true } else { false } }.count, 2)
        XCTAssertTrue(actions.contains { if case .warn(let w) = $0 { w.contains("2 more are ignored") } else { false } }, "\(actions)")
        XCTAssertEqual(b.followedCount, 2)
        XCTAssertEqual(b.resolved("x1", instance(id: own, lease: nil), now: t0), [], "this host's own record")
        XCTAssertEqual(b.resolved("x2", nil, now: t0), [], "no SRV")
        XCTAssertEqual(b.peerCount, 0)
    }

    /// The apps' subtypes are read beside the service type: a name either
    /// list gives is followed, once; a round where one list failed removes
    /// nothing.
    func testSubtypeListsJoinTheRound() {
        var b = browser()
        b.browseSubtypes(["_chat._sub._peerd._tcp"])
        _ = b.tick(now: t0)
        XCTAssertEqual(b.serial(1, now: t0), [.list(DNSName(dotted: "_peerd._tcp.peers.example")!),
                                              .list(DNSName(dotted: "_chat._sub._peerd._tcp.peers.example")!)])
        XCTAssertEqual(b.listed(["a"], now: t0), [], "the round waits for its second list")
        XCTAssertEqual(b.listed(["a", "only-under-chat"], now: t0), [.resolve("a"), .resolve("only-under-chat")])
        XCTAssertEqual(b.followedCount, 2)
        // The next round: the subtype's list fails; nothing goes.
        _ = b.tick(now: t0.addingTimeInterval(1))
        XCTAssertEqual(b.serial(2, now: t0.addingTimeInterval(1)).count, 2)
        XCTAssertEqual(b.listed(["a"], now: t0.addingTimeInterval(1)), [])
        XCTAssertEqual(b.listed(nil, now: t0.addingTimeInterval(1)), [])
        XCTAssertEqual(b.followedCount, 2)
    }

    func testNoAnswerAsksAgainAtTheNextPoll() {
        var b = browser()
        _ = b.tick(now: t0)
        XCTAssertEqual(b.serial(nil, now: t0).count, 1, "no serial yet: the list is due")
        XCTAssertEqual(b.listed(nil, now: t0), [])
        XCTAssertEqual(b.tick(now: t0.addingTimeInterval(0.5)), [.querySerial])
        XCTAssertEqual(b.serial(nil, now: t0.addingTimeInterval(0.5)).count, 1, "a failed list is read again at the next poll")
    }
}
