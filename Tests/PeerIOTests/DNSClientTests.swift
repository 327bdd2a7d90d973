import FoundationEssentials
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// The DNS client against a real Knot DNS on loopback (issue 46): what
/// the publisher's updates put in a zone is what the browser's queries
/// read back, an instance name with dots and spaces stays one label, a
/// removal leaves nothing, and a wrong key is refused as a refusal.
final class DNSClientTests: XCTestCase {
    private var server: KnotServer!
    private let zone = DNSName(dotted: "peers.example")!

    override func setUpWithError() throws { server = try KnotServer() }
    override func tearDown() { server?.stop() }

    private var key: TSIGKey {
        TSIGKey(name: KnotServer.keyName, algorithm: .hmacSHA256, secret: Array(Data(base64Encoded: KnotServer.secret)!))
    }

    private func publication(_ name: String = "Office 2.1 (Dana's)") -> WideAreaPublication {
        WideAreaPublication(instance: name, serviceType: "_peerd._tcp", domain: zone, hostLabel: "peerd-0123456789abcdef", port: 4242,
                            txt: [TXTEntry(key: "id", value: String(repeating: "a", count: 32)), TXTEntry(key: "v", value: "3")],
                            addresses: [.init(family: .ipv4, text: "10.1.2.3"), .init(family: .ipv6, text: "2001:db8::7")],
                            subtypes: ["_chat._sub._peerd._tcp"], ttl: 30)
    }

    func testAnUpdateIsReadBackRecordForRecord() throws {
        let client = try DNSClient(address: "127.0.0.1", port: server.port)
        let published = publication()
        try client.update(XCTUnwrap(published.update(zone: zone, leaseEnds: 2_000_000_000, replacing: nil)), key: key)

        let pointers = try client.query(XCTUnwrap(published.serviceName), .ptr)
        XCTAssertEqual(pointers.rcode, 0)
        // Knot keeps names in lowercase; the TXT's name keeps the case.
        guard case .ptr(let target)? = pointers.answer.first?.data, pointers.answer.count == 1 else { return XCTFail("\(pointers)") }
        XCTAssertTrue(target.matches(try XCTUnwrap(published.instanceName)), "\(target)")
        let subtype = try client.query(XCTUnwrap(DNSName(dotted: "_chat._sub._peerd._tcp.peers.example")), .ptr)
        XCTAssertEqual(subtype.answer.count, 1)

        let instance = try XCTUnwrap(published.instanceName)
        let srv = try client.query(instance, .srv)
        guard case .srv(0, 0, 4242, let server)? = srv.answer.first?.data else { return XCTFail("\(srv)") }
        XCTAssertTrue(server.matches(try XCTUnwrap(published.hostName)))
        XCTAssertEqual(srv.answer.first?.ttl, 30)
        let txt = try client.query(instance, .txt)
        XCTAssertEqual(txt.answer.map(\.data), [.txt(["id=" + String(repeating: "a", count: 32), "v=3", "name=Office 2.1 (Dana's)", "lease=2000000000"].map { Array($0.utf8) })])
        let host = try XCTUnwrap(published.hostName)
        XCTAssertEqual(try client.query(host, .a).answer.map(\.data), [.a("10.1.2.3")])
        XCTAssertEqual(try client.query(host, .aaaa).answer.map(\.data), [.aaaa("2001:db8::7")])
        let soa = try client.query(zone, .soa)
        guard case .soa(let primary, let serial)? = soa.answer.first?.data else { return XCTFail("no SOA: \(soa)") }
        XCTAssertEqual(primary, DNSName(dotted: "ns.peers.example"))
        XCTAssertGreaterThan(serial, 1, "the update raised the serial")
    }

    func testARenameAndARemovalLeaveNothingBehind() throws {
        let client = try DNSClient(address: "127.0.0.1", port: server.port)
        let first = publication("Office")
        try client.update(XCTUnwrap(first.update(zone: zone, leaseEnds: 1, replacing: nil)), key: key)
        var second = first
        second.instance = "Office #2"
        second.subtypes = []
        try client.update(XCTUnwrap(second.update(zone: zone, leaseEnds: 2, replacing: first)), key: key)
        let service = try XCTUnwrap(first.serviceName)
        let after = try client.query(service, .ptr).answer
        guard case .ptr(let target)? = after.first?.data, after.count == 1 else { return XCTFail("\(after)") }
        XCTAssertTrue(target.matches(try XCTUnwrap(second.instanceName)))
        XCTAssertEqual(try client.query(XCTUnwrap(first.instanceName), .srv).rcode, 3, "the old name is gone")
        XCTAssertEqual(try client.query(XCTUnwrap(DNSName(dotted: "_chat._sub._peerd._tcp.peers.example")), .ptr).answer, [])

        try client.update(XCTUnwrap(second.removal(zone: zone)), key: key)
        XCTAssertEqual(try client.query(service, .ptr).answer, [])
        XCTAssertEqual(try client.query(XCTUnwrap(second.hostName), .a).answer, [])
    }

    func testAWrongKeyAndNoKeyAreRefused() throws {
        let client = try DNSClient(address: "127.0.0.1", port: server.port)
        let update = try XCTUnwrap(publication().update(zone: zone, leaseEnds: 1, replacing: nil))
        let wrong = TSIGKey(name: KnotServer.keyName, algorithm: .hmacSHA256, secret: Array(repeating: 7, count: 32))
        XCTAssertThrowsError(try client.update(update, key: wrong)) { error in
            XCTAssertTrue((error as? DNSError)?.isRefusal == true, "\(error)")
        }
        XCTAssertThrowsError(try client.update(update, key: nil)) { error in
            XCTAssertTrue((error as? DNSError)?.isRefusal == true, "\(error)")
        }
        XCTAssertEqual(try client.query(XCTUnwrap(publication().serviceName), .ptr).answer, [], "nothing was published")
    }

    /// A server that stopped answering for a while is asked again once it
    /// answers: ldns marks a server that timed out as unreachable and would
    /// skip it for good (the first version never found a peer again, and
    /// its stop's removal returned at once, unsent).
    func testAServerThatHungIsAskedAgain() throws {
        let client = try DNSClient(address: "127.0.0.1", port: server.port, timeout: 1)
        XCTAssertEqual(try client.query(zone, .soa).rcode, 0)
        server.pause(true)
        XCTAssertThrowsError(try client.query(zone, .soa)) { XCTAssertEqual(($0 as? DNSError)?.kind, .noAnswer, "\($0)") }
        server.pause(false)
        XCTAssertEqual(try client.query(zone, .soa).rcode, 0, "asked again once it answers")
        try client.update(XCTUnwrap(publication().update(zone: zone, leaseEnds: 1, replacing: nil)), key: key)
        XCTAssertEqual(try client.query(XCTUnwrap(publication().serviceName), .ptr).answer.count, 1)
    }

    func testNoServerIsNoAnswerNotAHang() throws {
        let client = try DNSClient(address: "127.0.0.1", port: 9, timeout: 1)
        XCTAssertThrowsError(try client.query(zone, .soa)) { error in
            XCTAssertEqual((error as? DNSError)?.kind, .noAnswer, "\(error)")
        }
    }
}
