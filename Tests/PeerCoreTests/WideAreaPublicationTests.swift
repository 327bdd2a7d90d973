import XCTest
@testable import PeerCore
import PeerProtocol

/// What a host publishes into a wide-area domain (issue 46), record by
/// record, and the names and addresses it is made of.
final class WideAreaPublicationTests: XCTestCase {
    private let domain = DNSName(dotted: "peers.example")!

    private func publication(subtypes: [String] = ["_chat._sub._peerd._tcp"]) -> WideAreaPublication {
        WideAreaPublication(instance: "Dana's box.2", serviceType: "_peerd._tcp", domain: domain, hostLabel: "peerd-0123", port: 7717,
                            txt: [TXTEntry(key: "id", value: "x")],
                            addresses: [.init(family: .ipv6, text: "2001:db8::2"), .init(family: .ipv4, text: "10.0.1.2")],
                            subtypes: subtypes, ttl: 120)
    }

    func testTheRecords() throws {
        let instance = try XCTUnwrap(DNSName(["Dana's box.2", "_peerd", "_tcp", "peers", "example"]))
        let host = try XCTUnwrap(DNSName(dotted: "peerd-0123.peers.example"))
        let records = try XCTUnwrap(publication().records(leaseEnds: 99))
        XCTAssertEqual(records, [
            DNSRecord(owner: try XCTUnwrap(DNSName(dotted: "_peerd._tcp.peers.example")), ttl: 120, data: .ptr(instance)),
            DNSRecord(owner: try XCTUnwrap(DNSName(dotted: "_chat._sub._peerd._tcp.peers.example")), ttl: 120, data: .ptr(instance)),
            DNSRecord(owner: instance, ttl: 120, data: .srv(priority: 0, weight: 0, port: 7717, target: host)),
            DNSRecord(owner: instance, ttl: 120, data: .txt(["id=x", "name=Dana's box.2", "lease=99"].map { Array($0.utf8) })),
            DNSRecord(owner: host, ttl: 120, data: .a("10.0.1.2")),
            DNSRecord(owner: host, ttl: 120, data: .aaaa("2001:db8::2")),
        ])
        XCTAssertEqual(instance.presentation, "Dana\\039s\\032box\\0462._peerd._tcp.peers.example.", "one label, escaped for ldns")
    }

    func testAReplacementTakesOnlyWhatWasOurs() throws {
        let old = publication()
        var new = publication(subtypes: [])
        new.instance = "Dana's box.2 #2"
        let update = try XCTUnwrap(new.update(zone: domain, leaseEnds: 5, replacing: old))
        let oldRecords = try XCTUnwrap(old.records(leaseEnds: 0))
        XCTAssertEqual(update.deletions, [
            .name(try XCTUnwrap(new.instanceName)), .name(try XCTUnwrap(new.hostName)),
            .record(oldRecords[0]), .record(oldRecords[1]),
            .name(try XCTUnwrap(old.instanceName)),
        ], "shared pointer sets lose only our pointers")
        XCTAssertEqual(update.additions, new.records(leaseEnds: 5))
        let removal = try XCTUnwrap(new.removal(zone: domain))
        XCTAssertTrue(removal.additions.isEmpty)
        XCTAssertEqual(removal.deletions.count, 3)
    }

    func testOnlyRoutableAddressesArePublished() {
        let table: [(AddressFamily, String, Bool)] = [
            (.ipv4, "10.0.0.1", true), (.ipv4, "192.0.2.9", true), (.ipv4, "127.0.0.1", false), (.ipv4, "169.254.3.4", false),
            (.ipv6, "2001:db8::1", true), (.ipv6, "fd00::2", true), (.ipv6, "fe80::1", false), (.ipv6, "FEBF::1", false), (.ipv6, "::1", false),
        ]
        for (family, text, routable) in table {
            XCTAssertEqual(WideAreaPublication.isRoutable(.init(family: family, text: text)), routable, text)
        }
    }

    func testNamesAndServers() {
        XCTAssertEqual(DNSName(wire: [3, 0x61, 0x62, 0x63, 2, 0x6f, 0x72, 0]), DNSName(["abc", "or"]))
        XCTAssertNil(DNSName(wire: [3, 0x61, 0x62]), "a label past the end")
        XCTAssertNil(DNSName(wire: [0xC0, 0x0C]), "a compression pointer")
        XCTAssertNil(DNSName([String(repeating: "x", count: 64)]), "a label over 63 bytes")
        XCTAssertNil(DNSName(Array(repeating: String(repeating: "x", count: 63), count: 4)), "a name over 255 bytes")
        XCTAssertTrue(DNSName(dotted: "A.Example.")!.matches(DNSName(dotted: "a.example")!))
        XCTAssertTrue(DNSName(dotted: "x.a.example")!.hasSuffix(DNSName(dotted: "A.EXAMPLE")!))
        let servers: [(String, String?)] = [
            ("192.0.2.53", "192.0.2.53:53"), ("192.0.2.53:5353", "192.0.2.53:5353"), ("2001:db8::53", "[2001:db8::53]:53"),
            ("[2001:db8::53]:5300", "[2001:db8::53]:5300"), ("ns.example", nil), ("192.0.2.53:0", nil), ("[::1", nil), ("1.2.3", nil),
        ]
        for (text, expected) in servers { XCTAssertEqual(DNSServerAddress(text)?.description, expected, text) }
    }
}
