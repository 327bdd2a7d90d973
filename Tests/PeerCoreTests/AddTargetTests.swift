import XCTest
@testable import PeerCore
import PeerProtocol

/// Issue 21, point 5: `add` is not a scanner of this host.
final class AddTargetTests: XCTestCase {
    func testTable() {
        let own: Set<String> = ["169.254.1.2", "fe80::1"]
        // (family, address, refused without --allow-local-add)
        let rows: [(AddressFamily, String, Bool)] = [
            (.ipv4, "127.0.0.1", true),
            (.ipv4, "127.1.2.3", true),
            (.ipv4, "0.0.0.0", true),
            (.ipv4, "224.0.0.251", true),
            (.ipv4, "255.255.255.255", true),
            (.ipv4, "169.254.1.2", true),           // this host
            (.ipv4, "169.254.1.3", false),
            (.ipv4, "192.0.2.7", false),
            (.ipv6, "::1", true),
            (.ipv6, "::", true),
            (.ipv6, "ff02::fb", true),
            (.ipv6, "::ffff:127.0.0.1", true),
            (.ipv6, "::ffff:192.0.2.7", false),
            (.ipv6, "fe80::1", true),               // this host
            (.ipv6, "::ffff:169.254.1.2", true),    // this host's IPv4, mapped (issue 42)
            (.ipv6, "::FFFF:A9FE:0102", true),      // the same, in hex
            (.ipv6, "fe80:0:0::0:1", true),         // this host, spelt long
            (.ipv6, "fe80::1%eth0", true),          // this host, with its scope
            (.ipv6, "::ffff:169.254.1.3", false),
            (.ipv6, "fe80::2", false),
            (.ipv6, "2001:db8::5", false),
        ]
        for (family, address, refused) in rows {
            let endpoint = Endpoint(interface: "", family: family, address: address, port: 7717)
            XCTAssertEqual(AddTarget.refusal(endpoint, own: own, allowLocal: false) != nil, refused, address)
            XCTAssertNil(AddTarget.refusal(endpoint, own: own, allowLocal: true), "\(address) with --allow-local-add")
        }
        let error = AddTarget.refusal(Endpoint(interface: "", family: .ipv4, address: "127.0.0.1", port: 22), own: [], allowLocal: false)
        XCTAssertEqual(error?.code, .permissionDenied)
        XCTAssertTrue(error?.message.contains("--allow-local-add") ?? false)
    }

    /// A peer that answers with something other than a Noise handshake is
    /// "not a peerd session port", and none of its bytes are quoted.
    func testAForeignAnswerIsNotQuoted() {
        XCTAssertEqual(AddAnswer.text(reason: .protocolError, text: "frame length 21331 is out of range", address: "10.0.0.1:22", heard: true),
                       "10.0.0.1:22: not a peerd session port")
        XCTAssertEqual(AddAnswer.text(reason: .handshakeFailed, text: "anything", address: "10.0.0.1:22", heard: true), "10.0.0.1:22: not a peerd session port")
        XCTAssertEqual(AddAnswer.text(reason: .tooLarge, text: "SSH", address: "h:1", heard: true), "h:1: not a peerd session port")
        XCTAssertEqual(AddAnswer.text(reason: .closedByPeer, text: "connection refused", address: "h:1", heard: false), "h:1: connection refused (closedByPeer)")
        XCTAssertEqual(AddAnswer.text(reason: .timedOut, text: "no answer in 5 s", address: "h:1", heard: false), "h:1: no answer in 5 s (timedOut)")
        XCTAssertEqual(AddAnswer.text(reason: .handshakeFailed, text: "connection refused", address: "h:9", heard: false),
                       "h:9: connection refused (handshakeFailed)", "a closed port sent nothing: its words stay")
        XCTAssertEqual(AddAnswer.text(reason: .protocolError, text: "bad", address: "h:1", heard: true, proven: true),
                       "h:1: bad (protocolError)", "a peer that proved its key is peerd")
    }
}
