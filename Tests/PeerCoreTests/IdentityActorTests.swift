import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

final class IdentityActorTests: XCTestCase {
    func testEventsInOrderGiveOneUUIDPerPeer() async {
        let actor = IdentityActor(maxPeers: 16)
        for n in 0..<10 {
            for family in AddressFamily.allCases {
                let key = ServiceKey(interfaceIndex: 2, family: family, name: "p\(n)", type: "_peerd._tcp", domain: "local")
                let service = ResolvedService(key: key, interfaceName: "eth0", hostName: "h", address: family == .ipv4 ? "169.254.0.\(n)" : "fe80::\(n)",
                                              addressFamily: family, port: 1, txt: [TXTEntry(key: "id", value: String(repeating: "\(n)", count: 32))])
                _ = await actor.apply(.resolved(service))
            }
        }
        let rows = await actor.snapshots()
        XCTAssertEqual(rows.count, 10)
        XCTAssertEqual(Set(rows.map(\.id)).count, 10)
        XCTAssertTrue(rows.allSatisfy { $0.endpoints.count == 2 })
        XCTAssertEqual(rows.map(\.name), (0..<10).map { "p\($0)" }, "rows keep first-seen order")
    }
}
