import XCTest
@testable import PeerCore

final class AdvertisedPeerIDTests: XCTestCase {
    private func service(id: String) -> ResolvedService {
        ResolvedService(key: ServiceKey(interfaceIndex: 2, family: .ipv4, name: "x", type: "_peerd._tcp", domain: "local"),
                        interfaceName: "eth0", hostName: "h.local", address: "169.254.1.1", addressFamily: .ipv4, port: 1,
                        txt: [TXTEntry(key: "id", value: id)])
    }

    func testOnlyThirtyTwoLowercaseHexDigitsAreAPeerID() {
        let good = "0123456789abcdef0123456789abcdef"
        XCTAssertEqual(service(id: good).advertisedPeerID, good)
        XCTAssertEqual(service(id: good).peerKey, .peerID(good))
        for bad in ["", "abc", good.uppercased(), good + "0", String(good.dropLast()) + "g", "\u{1B}[2J" + String(good.dropFirst(4)),
                    String(good.dropLast()) + "\n"] {
            XCTAssertNil(service(id: bad).advertisedPeerID, "'\(bad)' is not a peer id")
            XCTAssertEqual(service(id: bad).peerKey, .instanceName("x"), "'\(bad)' makes the service foreign")
        }
    }
}
