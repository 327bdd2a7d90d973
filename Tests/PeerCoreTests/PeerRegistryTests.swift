import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

final class PeerRegistryTests: XCTestCase {
    private var counter = 0
    private func makeID() -> UUID {
        counter += 1
        return UUID(uuidString: String(format: "00000000-0000-0000-0000-%012d", counter))!
    }

    private func key(_ name: String, _ family: AddressFamily = .ipv4, interface: Int32 = 2) -> ServiceKey {
        ServiceKey(interfaceIndex: interface, family: family, name: name, type: "_peerd._tcp", domain: "local")
    }

    private func service(_ name: String, id: String?, family: AddressFamily = .ipv4, address: String = "169.254.1.2",
                         interface: Int32 = 2, extra: [TXTEntry] = []) -> ResolvedService {
        var txt = [TXTEntry(key: "txtvers", value: "1")]
        if let id { txt.append(TXTEntry(key: "id", value: pid(id))) }
        return ResolvedService(key: key(name, family, interface: interface), interfaceName: "eth\(interface)", hostName: "h.local",
                               address: address, addressFamily: family, port: 4000, txt: txt + extra)
    }

    private let t0 = Date(timeIntervalSince1970: 1_000)

    /// A well-formed peer id (32 lowercase hex digits) named by a short tag.
    private func pid(_ tag: String) -> String {
        let hex = tag.utf8.map { String($0, radix: 16) }.joined()
        return String((hex + String(repeating: "0", count: 32)).prefix(32))
    }

    func testInterfacesAndFamiliesMergeIntoOneRowWithOneUUID() {
        var registry = PeerRegistry(maxPeers: 8)
        let first = registry.apply(.resolved(service("alpha", id: "aa")), now: t0, makeID: makeID)
        let second = registry.apply(.resolved(service("alpha", id: "aa", family: .ipv6, address: "fe80::1")), now: t0, makeID: makeID)
        let third = registry.apply(.resolved(service("alpha", id: "aa", address: "10.9.0.2", interface: 3)), now: t0, makeID: makeID)
        guard case .found(let found) = first.first else { return XCTFail("expected found, got \(first)") }
        guard case .updated(let updated) = third.last else { return XCTFail("expected updated, got \(third)") }
        XCTAssertEqual(second.count, 1)
        XCTAssertEqual(registry.count, 1)
        XCTAssertEqual(found.id, updated.id)
        XCTAssertEqual(updated.endpoints.count, 3)
        XCTAssertEqual(Set(updated.endpoints.map(\.family)), [.ipv4, .ipv6])
        XCTAssertEqual(updated.peerId, pid("aa"))
    }

    func testLastEndpointGoneMarksLostAndReturnKeepsUUID() {
        var registry = PeerRegistry(maxPeers: 8)
        _ = registry.apply(.resolved(service("alpha", id: "aa")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("alpha", id: "aa", family: .ipv6, address: "fe80::1")), now: t0, makeID: makeID)
        let partial = registry.apply(.removed(key("alpha", .ipv6)), now: t0, makeID: makeID)
        guard case .updated(let stillThere) = partial.first else { return XCTFail("expected updated, got \(partial)") }
        XCTAssertFalse(stillThere.lost)
        let later = t0.addingTimeInterval(30)
        let gone = registry.apply(.removed(key("alpha")), now: later, makeID: makeID)
        guard case .lost(let lost) = gone.first else { return XCTFail("expected lost, got \(gone)") }
        XCTAssertTrue(lost.lost)
        XCTAssertEqual(lost.lastSeen, later)
        XCTAssertEqual(registry.count, 1, "a lost row stays listed")
        // Back at a new address, under a new instance name: same UUID.
        let back = registry.apply(.resolved(service("alpha #2", id: "aa", address: "169.254.7.7")), now: later, makeID: makeID)
        guard case .found(let returned) = back.first else { return XCTFail("expected found, got \(back)") }
        XCTAssertEqual(returned.id, lost.id)
        XCTAssertEqual(returned.name, "alpha #2")
        XCTAssertEqual(counter, 1, "exactly one UUID was ever made")
    }

    func testForeignAdvertiserIsKeyedByInstanceName() {
        var registry = PeerRegistry(maxPeers: 8)
        _ = registry.apply(.resolved(service("printer", id: nil)), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("printer", id: nil, family: .ipv6, address: "fe80::9")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("scanner", id: nil)), now: t0, makeID: makeID)
        XCTAssertEqual(registry.count, 2)
        XCTAssertNil(registry.snapshots[0].peerId)
        XCTAssertEqual(registry.id(for: .instanceName("printer")), registry.snapshots[0].id)
    }

    func testCapTurnsAwayNewPeersOnceEach() {
        var registry = PeerRegistry(maxPeers: 2)
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("b", id: "2")), now: t0, makeID: makeID)
        let third = registry.apply(.resolved(service("c", id: "3")), now: t0, makeID: makeID)
        let again = registry.apply(.resolved(service("c", id: "3", family: .ipv6, address: "fe80::3")), now: t0, makeID: makeID)
        XCTAssertEqual(third, [.rejectedAtCap(.peerID(pid("3")), unverified: false)])
        XCTAssertEqual(again, [], "a turned-away peer is reported once")
        XCTAssertEqual(registry.count, 2)
        // Known peers still update at the cap.
        let update = registry.apply(.resolved(service("a", id: "1", address: "169.254.9.9")), now: t0, makeID: makeID)
        XCTAssertEqual(update.count, 1)
    }

    func testUnverifiedCapLeavesRoomForPeersThatProveTheirKeys() {
        let paired = UUID()
        var registry = PeerRegistry(maxPeers: 8, maxUnverified: 2, known: [KnownPeer(peerID: pid("pp"), uuid: paired, name: "paired")])
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("b", id: "2")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.unverifiedCount, 2, "rows from mDNS alone")
        XCTAssertEqual(registry.apply(.resolved(service("c", id: "3")), now: t0, makeID: makeID),
                       [.rejectedAtCap(.peerID(pid("3")), unverified: true)], "a third fake advertisement is turned away")
        // The paired peer's row is there already, and it still resolves.
        let found = registry.apply(.resolved(service("paired", id: "pp")), now: t0, makeID: makeID)
        guard case .found(let row) = found.first else { return XCTFail("\(found)") }
        XCTAssertEqual(row.id, paired)
        // A peer that connects and proves its key gets a row past the cap.
        XCTAssertEqual(registry.adopt(peerID: pid("4"), name: "peer-4", now: t0, makeID: makeID)?.changes.count, 1)
        XCTAssertEqual(registry.count, 4)
        XCTAssertEqual(registry.unverifiedCount, 2)
        // A dialled peer whose key a handshake proved frees its slot.
        registry.markVerified(peerID: pid("1"))
        XCTAssertEqual(registry.unverifiedCount, 1)
        XCTAssertEqual(registry.apply(.resolved(service("d", id: "5")), now: t0, makeID: makeID).count, 1, "room again")
        // So does an adopted peer that was discovered first.
        _ = registry.adopt(peerID: pid("2"), name: "b", now: t0, makeID: makeID)
        XCTAssertEqual(registry.unverifiedCount, 1)
    }

    func testUnverifiedCapNeverExceedsThePeerCap() {
        let registry = PeerRegistry(maxPeers: 4, maxUnverified: 64)
        XCTAssertEqual(registry.maxUnverified, 4)
        XCTAssertEqual(PeerRegistry(maxPeers: 4).maxUnverified, 4, "by default every row may be unverified")
    }

    func testDaemonLostMarksEveryPeerLostAndKeepsUUIDs() {
        var registry = PeerRegistry(maxPeers: 8)
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("b", id: "2")), now: t0, makeID: makeID)
        let ids = registry.snapshots.map(\.id)
        let changes = registry.apply(.daemonLost, now: t0, makeID: makeID)
        XCTAssertEqual(changes.count, 2)
        XCTAssertTrue(registry.snapshots.allSatisfy(\.lost))
        _ = registry.apply(.resolved(service("b", id: "2")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.snapshots.map(\.id), ids)
        XCTAssertFalse(registry.snapshots.contains(where: \.lost))
    }

    func testTXTChangeIsAnUpdateAndIdenticalResolveIsSilent() {
        var registry = PeerRegistry(maxPeers: 8)
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.apply(.resolved(service("a", id: "1")), now: t0.addingTimeInterval(5), makeID: makeID), [])
        let changed = registry.apply(.resolved(service("a", id: "1", extra: [TXTEntry(key: "color", value: "red")])), now: t0, makeID: makeID)
        guard case .updated(let row) = changed.first else { return XCTFail("expected updated, got \(changed)") }
        XCTAssertEqual(row.info["color"], "red")
    }

    func testServiceThatChangesItsIdMovesToTheOtherPeer() {
        var registry = PeerRegistry(maxPeers: 8)
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        let changes = registry.apply(.resolved(service("a", id: "2")), now: t0, makeID: makeID)
        XCTAssertEqual(changes.count, 2)
        guard case .lost = changes[0], case .found = changes[1] else { return XCTFail("expected lost then found, got \(changes)") }
        XCTAssertEqual(registry.count, 2)
    }

    func testARowThatLosesTheServiceItWasNamedAfterTakesTheNameOfOneItHas() {
        // A collision rename: "twin" resolves again (a stale record) after
        // "twin #2", then its key becomes ours and is removed from the row.
        var registry = PeerRegistry(maxPeers: 8)
        _ = registry.apply(.resolved(service("twin", id: "h1")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("twin #2", id: "h1")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("twin", id: "h1", extra: [TXTEntry(key: "stale", value: "1")])), now: t0, makeID: makeID)
        XCTAssertEqual(registry.snapshots.map(\.name), ["twin"], "the last resolved names the row")
        let changes = registry.apply(.removed(key("twin")), now: t0, makeID: makeID)
        guard case .updated(let row)? = changes.first, changes.count == 1 else { return XCTFail("expected one update, got \(changes)") }
        XCTAssertEqual(row.name, "twin #2")
        XCTAssertNil(row.info["stale"], "the info is the remaining service's")
        XCTAssertFalse(row.lost)
        // A row named after a service it keeps is not renamed by another's removal.
        _ = registry.apply(.resolved(service("other", id: "h1")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.snapshots.map(\.name), ["other"])
        _ = registry.apply(.removed(key("twin #2")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.snapshots.map(\.name), ["other"])
    }

    func testRemovingAnUnknownServiceChangesNothing() {
        var registry = PeerRegistry(maxPeers: 8)
        XCTAssertEqual(registry.apply(.removed(key("ghost")), now: t0, makeID: makeID), [])
    }

    func testKnownPeersKeepTheirUUIDsAndAdoptionMakesOneRow() {
        let stored = UUID()
        var registry = PeerRegistry(maxPeers: 8, known: [KnownPeer(peerID: pid("aa"), uuid: stored, name: "alpha")])
        XCTAssertEqual(registry.snapshots.map(\.id), [stored])
        XCTAssertTrue(registry.snapshots[0].lost, "not seen yet")
        let found = registry.apply(.resolved(service("alpha", id: "aa")), now: t0, makeID: makeID)
        guard case .found(let row) = found.first else { return XCTFail("\(found)") }
        XCTAssertEqual(row.id, stored)
        XCTAssertEqual(counter, 0, "no UUID was made for a known peer")
        let adopted = registry.adopt(peerID: pid("bb"), name: "peer-bb", now: t0, makeID: makeID)
        XCTAssertEqual(adopted?.changes.count, 1)
        XCTAssertEqual(registry.adopt(peerID: pid("bb"), name: "peer-bb", now: t0, makeID: makeID)?.changes, [], "adopted once")
        XCTAssertEqual(registry.count, 2)
    }

    /// Issue 21, point 3: a row met only through a session takes the name
    /// the peer gave inside it and keeps the address it was reached at; a
    /// row mDNS named keeps its name.
    func testARowFromASessionLearnsItsNameAndAddress() {
        var registry = PeerRegistry(maxPeers: 8)
        let added = registry.adopt(peerID: pid("ad"), name: PeerRegistry.placeholderName(for: .peerID(pid("ad"))), now: t0, makeID: makeID)!
        let learned = registry.learned(peerID: pid("ad"), name: "host1", address: "10.9.0.2:7717")
        guard case .updated(let row)? = learned.first else { return XCTFail("\(learned)") }
        XCTAssertEqual(row.id, added.snapshot.id, "the same row, the same UUID")
        XCTAssertEqual(row.name, "host1")
        XCTAssertEqual(row.learnedAddress, "10.9.0.2:7717")
        XCTAssertEqual(registry.learned(peerID: pid("ad"), name: "host1", address: "10.9.0.2:7717"), [], "nothing new, no change")
        XCTAssertEqual(registry.learned(peerID: pid("ad"), name: "other", address: nil), [], "a learned name is not a placeholder: it stays")
        _ = registry.apply(.resolved(service("alpha", id: "aa")), now: t0, makeID: makeID)
        let named = registry.learned(peerID: pid("aa"), name: "impostor", address: "169.254.9.9:40000")
        guard case .updated(let alpha)? = named.first else { return XCTFail("\(named)") }
        XCTAssertEqual(alpha.name, "alpha", "mDNS's name stays")
        XCTAssertEqual(alpha.learnedAddress, "169.254.9.9:40000")
        XCTAssertEqual(registry.learned(peerID: pid("zz"), name: "x", address: "a:1"), [], "no row, nothing made")
    }

    // MARK: Eviction and proven names (hostile LAN)

    func testThrowawayKeysCannotFillTheTableForGood() {
        var registry = PeerRegistry(maxPeers: 4)
        var first: UUID?
        for n in 0..<4 {
            let row = registry.adopt(peerID: pid("k\(n)"), name: "peer-k\(n)", now: t0.addingTimeInterval(Double(n)), makeID: makeID)
            if n == 0 { first = row?.snapshot.id }
        }
        XCTAssertEqual(registry.count, 4)
        // A row with a session (protected) is never evicted; the least
        // recently seen empty row is.
        let busy = registry.snapshots[1].id
        let protected: Set<UUID> = [first!, busy]
        let real = registry.apply(.resolved(service("real", id: "rr")), now: t0.addingTimeInterval(10), protected: protected, makeID: makeID)
        guard case .evicted(let gone) = real.first, case .found(let row) = real.last else { return XCTFail("\(real)") }
        XCTAssertEqual(gone.peerId, pid("k2"), "the oldest unprotected row went")
        XCTAssertEqual(row.name, "real")
        XCTAssertEqual(registry.count, 4)
        // Nothing evictable: a new peer is turned away.
        let all = Set(registry.snapshots.map(\.id))
        XCTAssertNil(registry.adopt(peerID: pid("zz"), name: "peer-zz", now: t0, protected: all, makeID: makeID))
        // The evicted peer comes back under its old UUID.
        let back = registry.adopt(peerID: pid("k2"), name: "peer-k2", now: t0.addingTimeInterval(20), protected: protected, makeID: makeID)
        XCTAssertEqual(back?.snapshot.id, gone.id)
    }

    func testOnlyPresentRowsCountAgainstTheUnverifiedCap() {
        var registry = PeerRegistry(maxPeers: 8, maxUnverified: 2)
        _ = registry.apply(.resolved(service("a", id: "1")), now: t0, makeID: makeID)
        _ = registry.apply(.resolved(service("b", id: "2")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.unverifiedCount, 2)
        _ = registry.apply(.removed(key("a")), now: t0, makeID: makeID)
        _ = registry.apply(.removed(key("b")), now: t0, makeID: makeID)
        XCTAssertEqual(registry.unverifiedCount, 0, "lost rows do not count")
        let changes = registry.apply(.resolved(service("c", id: "3")), now: t0, makeID: makeID)
        guard case .found = changes.last else { return XCTFail("a new real peer is listed again: \(changes)") }
    }

    func testAnAdvertiserCannotRenameAProvenOrTrustedRow() {
        let trustedID = makeID()
        var registry = PeerRegistry(maxPeers: 8, known: [KnownPeer(peerID: pid("br"), uuid: trustedID, name: "bravo")])
        _ = registry.apply(.resolved(service("bravo", id: "br")), now: t0, makeID: makeID)
        let spoof = registry.apply(.resolved(service("evil", id: "br", address: "169.254.6.6", extra: [TXTEntry(key: "x", value: "y")])),
                                   now: t0, makeID: makeID)
        guard case .updated(let row) = spoof.first else { return XCTFail("\(spoof)") }
        XCTAssertEqual(row.name, "bravo", "a paired row keeps its trusted name")
        XCTAssertNil(row.info["x"])
        XCTAssertEqual(row.endpoints.count, 2)
        // The spoofed endpoint fails the identity check: it leaves the row, for good.
        let spoofed = row.endpoints.first { $0.address == "169.254.6.6" }!
        let dropped = registry.refuseEndpoint(spoofed, of: trustedID, now: t0)
        guard case .updated(let after) = dropped.first else { return XCTFail("\(dropped)") }
        XCTAssertEqual(after.endpoints.map(\.address), ["169.254.1.2"])
        XCTAssertEqual(registry.apply(.resolved(service("evil", id: "br", address: "169.254.6.6")), now: t0, makeID: makeID), [],
                       "a refused service is not merged again")

        // A row proven by a handshake (dialled, not paired) keeps its name too.
        _ = registry.apply(.resolved(service("charlie", id: "ch")), now: t0, makeID: makeID)
        registry.markVerified(peerID: pid("ch"))
        let renamed = registry.apply(.resolved(service("mallory", id: "ch", address: "169.254.7.7")), now: t0, makeID: makeID)
        XCTAssertEqual(renamed.compactMap { if case .updated(let r) = $0 { r.name } else { nil } }, ["charlie"])
        // An unproven row still follows its advertisements.
        _ = registry.apply(.resolved(service("delta", id: "de")), now: t0, makeID: makeID)
        let moved = registry.apply(.resolved(service("delta", id: "de", extra: [TXTEntry(key: "v", value: "2")])), now: t0, makeID: makeID)
        XCTAssertEqual(moved.compactMap { if case .updated(let r) = $0 { r.info["v"] } else { nil } }, ["2"])
    }
}
