import XCTest
@testable import PeerCore

final class ClientAdmissionTests: XCTestCase {
    private typealias Client = ClientAdmission.Client
    private let root = Client(uid: 0, privileged: true)
    private func member(_ uid: UInt32) -> Client { Client(uid: uid, privileged: true) }
    private func other(_ uid: UInt32?) -> Client { Client(uid: uid, privileged: false) }

    func testLimitsFollowMaxClients() {
        let limits = ClientAdmission(maxClients: 64)
        XCTAssertEqual([limits.maxClients, limits.perUser, limits.maxOthers, limits.othersPerUser], [64, 16, 16, 4])
        let tiny = ClientAdmission(maxClients: 1)
        XCTAssertEqual([tiny.maxClients, tiny.perUser, tiny.maxOthers, tiny.othersPerUser], [1, 4, 2, 2])
    }

    func testTable() {
        let admission = ClientAdmission(maxClients: 8)   // perUser 4, maxOthers 2, othersPerUser 2
        let othersFull = [other(1000), other(1001)]
        let membersFull = (0..<8).map { member(2000 + UInt32($0)) }
        let cases: [(String, Client, [Client], ClientAdmission.Refusal?)] = [
            ("an empty daemon takes anyone", other(1000), [], nil),
            ("root gets in past others and members", root, othersFull + membersFull, nil),
            ("root has its own cap", root, Array(repeating: root, count: 8), .clients(8)),
            ("members get in while others hold their whole pool", member(2000), othersFull, nil),
            ("members share maxClients", member(3000), membersFull, .clients(8)),
            ("root does not count against members", member(3000), Array(repeating: root, count: 8), nil),
            ("one member uid holds at most perUser", member(2000), Array(repeating: member(2000), count: 4), .perUser(uid: 2000, limit: 4)),
            ("others share a small pool", other(1002), othersFull, .others(2)),
            ("one other uid holds at most othersPerUser", other(1000), [other(1000), other(1000)], .others(2)),
            ("unknown credentials are others", other(nil), othersFull, .others(2)),
        ]
        for (name, client, connected, expected) in cases {
            XCTAssertEqual(admission.admit(client, connected: connected), expected, name)
        }
        let wide = ClientAdmission(maxClients: 64)
        XCTAssertEqual(wide.admit(other(1000), connected: Array(repeating: other(1000), count: 4)), .otherPerUser(uid: 1000, limit: 4))
        XCTAssertNil(wide.admit(other(1001), connected: Array(repeating: other(1000), count: 4)))
    }

    func testRefusalsNameTheirLimit() {
        XCTAssertTrue(ClientAdmission.Refusal.clients(64).description.contains("--max-clients"))
        XCTAssertTrue(ClientAdmission.Refusal.otherPerUser(uid: 7, limit: 4).description.contains("uid 7"))
    }
}
