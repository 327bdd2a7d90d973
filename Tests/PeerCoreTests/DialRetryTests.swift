import XCTest
@testable import PeerCore
import PeerProtocol

final class DialRetryTests: XCTestCase {
    func testTable() {
        let rows: [(String, Bool, Bool, CloseReason, Int, DialRetry.Next)] = [
            ("an accepted connection", false, false, .handshakeFailed, 2, .notADial),
            ("a proven dial ends as usual", true, true, .keepaliveLost, 2, .notADial),
            ("handshake failed, addresses left", true, false, .handshakeFailed, 1, .tryNext),
            ("another key, addresses left", true, false, .identityMismatch, 1, .tryNext),
            ("handshake failed, none left", true, false, .handshakeFailed, 0, .inviteFailed),
            ("closed by us (unpair, shutdown)", true, false, .closedLocally, 3, .inviteFailed),
            ("the peer refused before proving", true, false, .closedByPeer, 3, .inviteFailed),
        ]
        for (name, dialled, authenticated, reason, remaining, expected) in rows {
            XCTAssertEqual(DialRetry.next(dialledByUs: dialled, authenticated: authenticated, reason: reason, remaining: remaining), expected, name)
        }
    }
}
