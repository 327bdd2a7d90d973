import FoundationEssentials
@testable import PeerCore
@testable import PeerTools
import XCTest
import PeerProtocol

/// `doctor PEER`'s datagram check: what each path state says.
final class DatagramDoctorTests: XCTestCase {
    func testEachPathStateHasItsVerdict() {
        let rows: [(DatagramInfo?, DoctorStatus)] = [
            (nil, .skipped), (DatagramInfo(path: "unsupported"), .skipped), (DatagramInfo(path: "waiting"), .skipped),
            (DatagramInfo(path: "probing"), .skipped), (DatagramInfo(path: "up", roundTripMs: 0.2), .ok),
            (DatagramInfo(path: "blocked", port: 7717), .failed), (DatagramInfo(path: "off"), .failed),
        ]
        for (info, status) in rows {
            XCTAssertEqual(DoctorPeerRules.datagrams(info, peer: "nas", ownPort: 7718).status, status, "\(info?.path ?? "nil")")
        }
        let blocked = DoctorPeerRules.datagrams(DatagramInfo(path: "blocked", port: 7717), peer: "nas", ownPort: 7718)
        XCTAssertEqual(blocked.fix, "let UDP port 7717 on 'nas' and UDP port 7718 here through the firewalls (nft list ruleset)")
    }
}
