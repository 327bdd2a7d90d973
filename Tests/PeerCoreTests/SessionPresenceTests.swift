import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

final class SessionPresenceTests: XCTestCase {
    private let made = Date(timeIntervalSince1970: 1000)
    private let ended = Date(timeIntervalSince1970: 2000)
    private let now = Date(timeIntervalSince1970: 3000)
    private let endpoint = Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 4000)

    private func row(endpoints: [Endpoint], lost: Bool = false) -> PeerSnapshot {
        PeerSnapshot(id: UUID(), peerId: nil, name: "p", state: .notConnected, endpoints: endpoints, info: [:], lastSeen: made, lost: lost)
    }

    /// (case, endpoints, lost before, session address, last session end) → (lost, lastSeen, session)
    func testTable() {
        let rows: [(String, [Endpoint], Bool, String?, Date?, Bool, Date, String?)] = [
            ("adopted, session live: present, seen now", [], false, "169.254.1.2", nil, false, now, "169.254.1.2"),
            ("adopted, session ended: lost, seen when it ended", [], false, nil, ended, true, ended, nil),
            ("adopted, never a session: lost since it was made", [], false, nil, nil, true, made, nil),
            ("discovered: mDNS decides", [endpoint], false, nil, ended, false, made, nil),
            ("discovered, session live: the address shown", [endpoint], false, "fe80::1", nil, false, made, "fe80::1"),
            ("lost by mDNS, session live: present", [], true, "169.254.1.2", nil, false, now, "169.254.1.2"),
        ]
        for (name, endpoints, lostBefore, address, end, lost, seen, session) in rows {
            let shown = SessionPresence.apply(to: row(endpoints: endpoints, lost: lostBefore), sessionAddress: address, lastSessionEnd: end, now: now)
            XCTAssertEqual(shown.lost, lost, name)
            XCTAssertEqual(shown.lastSeen, seen, name)
            XCTAssertEqual(shown.session, session, name)
        }
    }
}
