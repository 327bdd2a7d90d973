import XCTest
@testable import PeerCore
import PeerProtocol

/// `peerctl add HOST[:PORT]`: what a user types, read as a table.
final class PeerAddressTests: XCTestCase {
    func testParseTable() throws {
        let rows: [(String, PeerAddress)] = [
            ("10.0.0.5", PeerAddress(host: "10.0.0.5")),
            ("10.0.0.5:4000", PeerAddress(host: "10.0.0.5", port: 4000)),
            ("fe80::1", PeerAddress(host: "fe80::1")),
            ("fe80::1%eth0", PeerAddress(host: "fe80::1", scope: "eth0")),
            ("[fe80::1%eth0]:4000", PeerAddress(host: "fe80::1", scope: "eth0", port: 4000)),
            ("[2001:db8::2]", PeerAddress(host: "2001:db8::2")),
            ("host.lan", PeerAddress(host: "host.lan")),
            ("host.lan:65535", PeerAddress(host: "host.lan", port: 65535)),
        ]
        for (text, expected) in rows {
            XCTAssertEqual(try PeerAddress.parse(text), expected, text)
        }
    }

    func testRefusalTable() {
        let rows: [(String, PeerAddressError)] = [
            ("", .empty),
            ("10.0.0.5:0", .badPort("0")),
            ("10.0.0.5:70000", .badPort("70000")),
            ("10.0.0.5:http", .badPort("http")),
            ("[fe80::1", .malformed("[fe80::1")),
            ("[fe80::1]x", .malformed("[fe80::1]x")),
            ("10.0.0.5%eth0", .scopeWithoutIPv6("10.0.0.5%eth0")),
            ("a b", .malformed("a b")),
            ("fe80::zz::1", .malformed("fe80::zz::1")),
            (":4000", .malformed(":4000")),
        ]
        for (text, expected) in rows {
            XCTAssertThrowsError(try PeerAddress.parse(text), text) { XCTAssertEqual($0 as? PeerAddressError, expected, text) }
        }
    }

    func testEndpointsOnlyForNumericHosts() throws {
        XCTAssertEqual(try PeerAddress.parse("[fe80::1%eth0]:4000").endpoint,
                       Endpoint(interface: "eth0", family: .ipv6, address: "fe80::1", port: 4000))
        XCTAssertEqual(try PeerAddress.parse("192.168.1.9").endpoint,
                       Endpoint(interface: "", family: .ipv4, address: "192.168.1.9", port: PeerAddress.defaultPort))
        XCTAssertNil(try PeerAddress.parse("host.lan").endpoint, "a name is resolved by the client, not the daemon")
    }

    func testTheDefaultPortIsPinned() {
        XCTAssertEqual(PeerAddress.defaultPort, 7717, "peers that were told the port rely on it")
    }
}
