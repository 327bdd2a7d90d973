import XCTest
@testable import PeerCore

final class SessionAdmissionTests: XCTestCase {
    private let admission = SessionAdmission(maxSessions: 8, maxPending: 3, maxPendingPerAddress: 2)   // 2 kept for paired, 2 unaccepted

    func testSmallCapsKeepNoSlotAside() {
        let two = SessionAdmission(maxSessions: 2, maxPending: 16, maxPendingPerAddress: 4)
        XCTAssertEqual(two.reservedForPaired, 0)
        XCTAssertNil(two.admitAuthenticated(paired: false, address: "b", others: [.init(address: "a", paired: false, accepted: true)]))
        XCTAssertEqual(SessionAdmission(maxSessions: 64, maxPending: 16, maxPendingPerAddress: 4).reservedForPaired, 16)
    }

    private func pending(_ number: Int, _ address: String, known: Bool = false) -> SessionAdmission.Pending {
        .init(number: number, address: address, known: known)
    }

    private func session(_ address: String, paired: Bool = false, accepted: Bool = true) -> SessionAdmission.Authenticated {
        .init(address: address, paired: paired, accepted: accepted)
    }

    func testConnectionsTable() {
        let cases: [(String, String, Bool, [SessionAdmission.Pending], Int, SessionAdmission.ConnectionVerdict)] = [
            ("room", "a", false, [], 0, .admit),
            ("per-address cap", "a", false, [pending(1, "a"), pending(2, "a")], 0, .refuse(.pendingPerAddress(2))),
            ("full: the oldest stranger gives way", "d", false, [pending(5, "b"), pending(3, "c"), pending(4, "a")], 0, .admitEvicting(3)),
            ("known peers' handshakes are never evicted", "d", false, [pending(1, "b", known: true), pending(2, "c"), pending(3, "a", known: true)], 0,
             .admitEvicting(2)),
            ("all pending known: a stranger is refused", "d", false, [pending(1, "b", known: true), pending(2, "c", known: true), pending(3, "a", known: true)], 0,
             .refuse(.pendingHandshakes(3))),
            ("a known peer gets in past strangers", "k", true, [pending(1, "b"), pending(2, "c"), pending(3, "a")], 0, .admitEvicting(1)),
            ("every session slot taken: the handshake goes on, so the refusal can name the limit", "z", true, [], 8, .admit),
        ]
        for (name, address, known, pending, _, expected) in cases {
            XCTAssertEqual(admission.admitConnection(from: address, known: known, pending: pending), expected, name)
        }
    }

    func testAuthenticatedTable() {
        let strangers = (1...6).map { session("10.0.0.\($0)") }
        let cases: [(String, Bool, String, [SessionAdmission.Authenticated], SessionLimit?)] = [
            ("room", false, "a", [], nil),
            ("unpaired peers leave slots for paired ones", false, "a", strangers, .unpairedSessions(6)),
            ("a paired peer takes a kept slot", true, "p", strangers, nil),
            ("everything full", true, "p", strangers + [session("p1", paired: true), session("p2", paired: true)], .sessions(8)),
            ("per address", false, "a", Array(repeating: session("a"), count: 4), .perAddress(4)),
            ("unaccepted", false, "a", [session("b", accepted: false), session("c", accepted: false)], .unaccepted(2)),
            ("paired peers are never unaccepted-capped", true, "a", [session("b", accepted: false), session("c", accepted: false)], nil),
        ]
        for (name, paired, address, others, expected) in cases {
            XCTAssertEqual(admission.admitAuthenticated(paired: paired, address: address, others: others), expected, name)
        }
        XCTAssertEqual(admission.admitDial(paired: false, others: strangers), .unpairedSessions(6))
        XCTAssertNil(admission.admitDial(paired: true, others: strangers))
    }

    func testLimitsNameThemselves() {
        XCTAssertTrue(SessionLimit.sessions(64).description.contains("--max-sessions"))
        XCTAssertTrue(SessionLimit.pendingHandshakes(16).description.contains("--max-pending"))
        XCTAssertFalse(SessionLimit.unaccepted(16).description.contains("unreachable"))
    }
}
