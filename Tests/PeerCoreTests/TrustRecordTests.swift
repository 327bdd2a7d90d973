import FoundationEssentials
import XCTest
@testable import PeerCore
import PeerProtocol

/// Where a paired peer is dialled: what mDNS shows, else where it was last connected.
final class TrustRecordTests: XCTestCase {
    func testDialAddressesTable() {
        let shown = [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 7717)]
        let remembered = [Endpoint(interface: "", family: .ipv4, address: "10.0.2.7", port: 7717)]
        var record = TrustRecord(publicKey: String(repeating: "a", count: 64), peerId: "p", name: "nas", uuid: UUID(),
                                 pairedAt: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(record.dialAddresses(shown: shown), shown, "nothing remembered: what mDNS shows")
        XCTAssertEqual(record.dialAddresses(shown: []), [], "nothing at all")
        record.addresses = remembered
        XCTAssertEqual(record.dialAddresses(shown: shown), shown, "mDNS comes first")
        XCTAssertEqual(record.dialAddresses(shown: []), remembered, "no mDNS (added by address, a partition): the last connection's")
    }

    func testTheFilesRecordDialsAsTheControlRecordDoes() {
        let shown = [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 7717)]
        let remembered = [Endpoint(interface: "", family: .ipv4, address: "10.0.2.7", port: 7717)]
        var record = TrustFileRecord(publicKey: String(repeating: "a", count: 64), peerId: "p", name: "nas", uuid: UUID(),
                                     pairedAt: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(record.dialAddresses(shown: []), [])
        record.addresses = remembered
        XCTAssertEqual(record.dialAddresses(shown: shown), shown, "mDNS comes first")
        XCTAssertEqual(record.dialAddresses(shown: []), remembered)
        XCTAssertEqual(record.shown.dialAddresses(shown: []), remembered, "the control view says the same")
    }
}
