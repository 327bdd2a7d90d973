import FoundationEssentials
import XCTest
@testable import PeerCore
import PeerProtocol

/// The wide-area publisher (issue 46): the name is checked first, one
/// update publishes everything, refreshes come at half the lease, a
/// collision renames as Avahi does, a refusal waits and says so, and a
/// stop takes the records away.
final class WideAreaPublisherTests: XCTestCase {
    private let zone = DNSName(dotted: "peers.example")!
    private let own = String(repeating: "a", count: 32)
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func publication(_ name: String = "Office") -> WideAreaPublication {
        WideAreaPublication(instance: name, serviceType: "_peerd._tcp", domain: zone, hostLabel: "peerd-aaaa", port: 7717,
                            txt: [TXTEntry(key: "id", value: own)], addresses: [.init(family: .ipv4, text: "10.0.1.2")], subtypes: [], ttl: 120)
    }

    private func sent(_ actions: [WideAreaPublisher.Action]) -> DNSUpdate? {
        for action in actions { if case .send(let update) = action { return update } }
        return nil
    }

    func testCheckPublishRefreshAndStop() throws {
        var p = WideAreaPublisher(zone: zone, desired: publication(), ownPeerID: own)
        XCTAssertEqual(p.start(), [.checkName(try XCTUnwrap(publication().instanceName))])
        let first = try XCTUnwrap(sent(p.nameChecked(.free, now: t0)))
        XCTAssertEqual(first, publication().update(zone: zone, leaseEnds: 1_800_000_120, replacing: nil))
        XCTAssertEqual(p.phase, .updating)
        XCTAssertEqual(p.updated(.applied, now: t0), [])
        XCTAssertEqual(p.phase, .published)
        XCTAssertEqual(p.lastResult, "applied")
        XCTAssertEqual(p.tick(now: t0.addingTimeInterval(59)), [], "not yet half the lease")
        let refresh = try XCTUnwrap(sent(p.tick(now: t0.addingTimeInterval(60))))
        XCTAssertTrue(refresh.additions.contains { if case .txt(let s) = $0.data { s.contains(Array("lease=1800000180".utf8)) } else { false } })
        XCTAssertEqual(p.updated(.applied, now: t0.addingTimeInterval(60)), [])
        // An address changes: the records are replaced at once.
        var moved = publication()
        moved.addresses = [.init(family: .ipv4, text: "10.0.9.9")]
        XCTAssertNotNil(sent(p.changed(moved, now: t0.addingTimeInterval(61))))
        XCTAssertEqual(p.updated(.applied, now: t0.addingTimeInterval(61)), [])
        let removal = try XCTUnwrap(sent(p.stop()))
        XCTAssertEqual(removal, moved.removal(zone: zone))
        XCTAssertEqual(p.phase, .stopped)
    }

    func testACollisionRenamesAndOurOwnOldRecordIsNoCollision() throws {
        var p = WideAreaPublisher(zone: zone, desired: publication(), ownPeerID: own)
        _ = p.start()
        let renamed = p.nameChecked(.taken(String(repeating: "f", count: 32)), now: t0)
        XCTAssertEqual(renamed, [.renamed(from: "Office", to: "Office #2"), .checkName(try XCTUnwrap(publication("Office #2").instanceName))])
        XCTAssertEqual(p.instance, "Office #2")
        XCTAssertEqual(p.nameChecked(.taken(nil), now: t0).first, .renamed(from: "Office #2", to: "Office #3"), "records that are no peer's hold the name too")
        XCTAssertNotNil(sent(p.nameChecked(.taken(own), now: t0)), "our own records (a restart after a kill) are replaced")
        for (name, next) in [("a", "a #2"), ("a #2", "a #3"), ("a #9", "a #10"), ("#2", "#2 #2"), ("a#2", "a#2 #2")] {
            XCTAssertEqual(WideAreaPublisher.alternative(to: name), next, name)
        }
    }

    func testARefusalWaitsAndSaysWhy() throws {
        var p = WideAreaPublisher(zone: zone, desired: publication(), ownPeerID: own)
        _ = p.start()
        _ = p.nameChecked(.free, now: t0)
        let actions = p.updated(.refused("NOTAUTH"), now: t0)
        XCTAssertEqual(p.phase, .refused)
        XCTAssertEqual(p.lastResult, "refused: NOTAUTH")
        XCTAssertTrue(actions.contains { if case .warn(let w) = $0 { w.contains("refused: NOTAUTH") } else { false } })
        XCTAssertEqual(p.tick(now: t0.addingTimeInterval(1)), [], "it waits before trying again")
        XCTAssertNotNil(sent(p.tick(now: t0.addingTimeInterval(2))), "then tries again")
        XCTAssertEqual(p.stop(), [], "nothing was published: nothing to take away")
    }
}
