import Foundation
import XCTest
@testable import PeerCore

/// A session opened to pair carries only the pairing, and a connection
/// that says nothing is closed early.
final class PairingSessionLifecycleTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1000)
    private func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
    private let limits = SessionLifecycle.Limits()

    private func acceptedForPairing() -> SessionLifecycle {
        var b = SessionLifecycle(inviteeAt: t0, limits: limits)
        b.bytesArrived()
        _ = b.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(0))
        XCTAssertEqual(b.received(.invite(name: "a", context: [], timeoutMilliseconds: 30_000, pairing: true), now: at(0)),
                       [.requestDecision(name: "a", context: [], timeoutSeconds: 30, pairing: true)])
        XCTAssertEqual(b.decided(accept: true, now: at(1)), [.send(.accept()), .established])
        return b
    }

    func testDataOnASessionOpenedToPairIsAProtocolError() {
        var b = acceptedForPairing()
        XCTAssertTrue(b.isForPairing)
        XCTAssertTrue(b.canCarryPairing)
        XCTAssertFalse(b.canSendData, "nothing can be sent to a stranger's pairing session either")
        XCTAssertEqual(b.received(.ping(1), now: at(1)), [.send(.pong(1))], "pings still work")
        let actions = b.received(.data(more: false, bytes: Array("smuggled".utf8)), now: at(2))
        XCTAssertEqual(actions, [.send(.close(reason: .protocolError, text: "application data on a session opened to pair")),
                                 .finish(.protocolError, "application data on a session opened to pair")])
        XCTAssertFalse(actions.contains { if case .deliver = $0 { true } else { false } })
    }

    func testThePairingRequestMustComeWithinItsDeadline() {
        var late = acceptedForPairing()
        XCTAssertEqual(late.tick(now: at(5.9)), [])
        XCTAssertEqual(late.tick(now: at(6)).last, .finish(.protocolError, "no pairing request within 5 s of accepting a session to pair"))
        var prompt = acceptedForPairing()
        prompt.pairingRequested()
        XCTAssertFalse(prompt.tick(now: at(6)).contains { if case .finish = $0 { true } else { false } },
                       "a pairing under way runs to its own timeout")
    }

    func testTheInviterSideOfAPairingSessionSendsNoData() {
        var a = SessionLifecycle(inviterAt: t0, name: "a", context: [], inviteTimeout: 30, limits: limits, pairing: true)
        _ = a.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(0))
        XCTAssertEqual(a.received(.accept(), now: at(1)), [.established])
        XCTAssertFalse(a.canSendData)
        XCTAssertEqual(a.received(.data(more: false, bytes: [1]), now: at(1)).last, .finish(.protocolError, "application data on a session opened to pair"))
    }

    func testASilentConnectionIsClosedBeforeTheHandshakeBudget() {
        var silent = SessionLifecycle(inviteeAt: t0, limits: limits)
        XCTAssertEqual(silent.tick(now: at(1.9)), [])
        XCTAssertEqual(silent.tick(now: at(2)), [.finish(.handshakeFailed, "nothing arrived within 2 s of the connection")])
        var talking = SessionLifecycle(inviteeAt: t0, limits: limits)
        talking.bytesArrived()
        XCTAssertEqual(talking.tick(now: at(2)), [], "a connection that sent its first message has the whole 5 s")
        XCTAssertEqual(talking.tick(now: at(5)).last, .finish(.handshakeFailed, "the handshake did not complete within 5 s"))
    }
}
