import Foundation
import XCTest
@testable import PeerCore

/// State-machine tables for one session.
final class SessionLifecycleTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1000)
    private func at(_ seconds: TimeInterval) -> Date { t0.addingTimeInterval(seconds) }
    private let limits = SessionLifecycle.Limits()

    private func inviter() -> SessionLifecycle {
        SessionLifecycle(inviterAt: t0, name: "alpha", context: [7], inviteTimeout: 30, limits: limits)
    }

    func testInviteAcceptDataClose() {
        var a = inviter()
        XCTAssertEqual(a.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(1)),
                       [.send(.invite(name: "alpha", context: [7], timeoutMilliseconds: 30_000))])
        XCTAssertEqual(a.phase, .inviting)
        var b = SessionLifecycle(inviteeAt: t0, limits: limits)
        XCTAssertEqual(b.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(1)), [])
        XCTAssertEqual(b.received(.invite(name: "alpha", context: [7], timeoutMilliseconds: 30_000), now: at(1)),
                       [.requestDecision(name: "alpha", context: [7], timeoutSeconds: 30, pairing: false)])
        XCTAssertEqual(b.receivedInvitation, ReceivedInvitation(name: "alpha", context: [7], timeoutSeconds: 30, pairing: false),
                       "the invitation is kept for a decision asked after adoption")
        var late = SessionLifecycle(inviteeAt: t0, limits: limits)
        _ = late.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(1))
        _ = late.received(.invite(name: "x", context: [], timeoutMilliseconds: 3_600_000), now: at(1))
        XCTAssertEqual(late.receivedInvitation?.timeoutSeconds, Int(limits.maxInviteTimeout), "kept as clamped, as asked")
        XCTAssertEqual(b.received(.data(more: false, bytes: [1]), now: at(1)).last, .finish(.protocolError, "unexpected data while awaitingDecision"),
                       "nothing is delivered before acceptance")
        var b2 = SessionLifecycle(inviteeAt: t0, name: "bravo", limits: limits)
        _ = b2.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(1))
        _ = b2.received(.invite(name: "alpha", context: [], timeoutMilliseconds: 30_000), now: at(1))
        XCTAssertEqual(b2.decided(accept: true, now: at(2)), [.send(.accept(name: "bravo")), .established], "the invitee names itself")
        var old = SessionLifecycle(inviteeAt: t0, name: "bravo", limits: limits)
        _ = old.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, remoteFeatures: [], now: at(1))
        _ = old.received(.invite(name: "alpha", context: [], timeoutMilliseconds: 30_000), now: at(1))
        XCTAssertEqual(old.decided(accept: true, now: at(2)), [.send(.accept(name: "")), .established],
                       "to a peer without accept-name (0.1.0), the old empty body")
        // Issue 42, point 5: an app name the wire takes (up to 63 bytes)
        // but the name rule refuses is a protocol error, not a default-app invitation.
        for bad in ["Chat", "much-too-long-app-name", "a--b"] {
            var forApp = SessionLifecycle(inviteeAt: t0, limits: limits)
            _ = forApp.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(1))
            XCTAssertEqual(forApp.received(.invite(name: "alpha", context: [], timeoutMilliseconds: 30_000, app: bad), now: at(1)).last,
                           .finish(.protocolError, "an invitation for '\(bad)', which is no app name"), bad)
        }
        XCTAssertNil(a.acceptedName)
        XCTAssertEqual(a.received(.accept(name: "bravo"), now: at(2)), [.established])
        XCTAssertEqual(a.acceptedName, "bravo", "the inviter learns the name")
        XCTAssertEqual(a.received(.data(more: true, bytes: [1]), now: at(3)), [])
        XCTAssertEqual(a.received(.data(more: false, bytes: [2]), now: at(3)), [.deliver([1, 2])])
        XCTAssertEqual(a.closeLocally("bye"), [.send(.close(reason: .closedLocally, text: "bye")), .finish(.closedLocally, "bye")])
        XCTAssertEqual(b2.received(.close(reason: .closedLocally, text: "bye"), now: at(4)), [.finish(.closedByPeer, "bye")])
    }

    func testDeclineAndTimeouts() {
        var a = inviter()
        _ = a.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(0))
        XCTAssertEqual(a.received(.decline(reason: .declined, text: "no"), now: at(1)), [.finish(.declined, "no")])

        var late = inviter()
        _ = late.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(0))
        XCTAssertEqual(late.tick(now: at(29)), [])
        XCTAssertEqual(late.tick(now: at(30)).last, .finish(.timedOut, "the invitation was not answered within 30 s"))

        var b = SessionLifecycle(inviteeAt: t0, limits: limits)
        _ = b.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(0))
        _ = b.received(.invite(name: "", context: [], timeoutMilliseconds: 2_000), now: at(0))
        XCTAssertEqual(b.tick(now: at(2)), [.send(.decline(reason: .timedOut, text: "no decision before the timeout")),
                                            .finish(.timedOut, "no decision before the timeout")])
        XCTAssertEqual(b.decided(accept: true, now: at(3)), [], "too late to accept")
    }

    func testHandshakeBudgetAndIdentityMismatch() {
        var slow = inviter()
        XCTAssertEqual(slow.tick(now: at(4.9)), [])
        XCTAssertEqual(slow.tick(now: at(5)), [.finish(.handshakeFailed, "the handshake did not complete within 5 s")])
        var spoofed = inviter()
        let actions = spoofed.handshakeCompleted(remotePeerID: "rogue", expectedPeerID: "real", now: at(1))
        XCTAssertEqual(actions, [.finish(.identityMismatch, "the peer proved id rogue, but real was advertised")])
        XCTAssertEqual(spoofed.phase, .closed(.identityMismatch))
        var silent = SessionLifecycle(inviteeAt: t0, limits: limits)
        _ = silent.handshakeCompleted(remotePeerID: "a", expectedPeerID: nil, now: at(1))
        XCTAssertEqual(silent.tick(now: at(6)).last, .finish(.protocolError, "no invitation within 5 s of the handshake"))
    }

    func testKeepalive() {
        var a = inviter()
        _ = a.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(0))
        _ = a.received(.accept(), now: at(0))
        XCTAssertEqual(a.tick(now: at(4)), [])
        XCTAssertEqual(a.tick(now: at(5)), [.send(.ping(1))])
        XCTAssertEqual(a.received(.ping(9), now: at(6)), [.send(.pong(9))])
        XCTAssertEqual(a.tick(now: at(20.9)), [.send(.ping(2))], "still alive 14.9 s after the last frame")
        XCTAssertEqual(a.tick(now: at(21)), [.finish(.keepaliveLost, "nothing heard for 15 s")])
    }

    /// A sender waiting on its last messages asks with a ping (the
    /// receiver acknowledges before it answers): numbered with the
    /// keepalive's pings, and only on a connected session.
    func testAskingForAnAcknowledgementIsAPingOnAConnectedSessionOnly() {
        var a = inviter()
        XCTAssertEqual(a.askForAcknowledgement(now: at(0)), [], "not before the handshake")
        _ = a.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(0))
        XCTAssertEqual(a.askForAcknowledgement(now: at(0)), [], "not while inviting")
        _ = a.received(.accept(), now: at(0))
        XCTAssertEqual(a.askForAcknowledgement(now: at(1)), [.send(.ping(1))])
        XCTAssertEqual(a.tick(now: at(5.9)), [], "the ask counts as sending for the keepalive")
        XCTAssertEqual(a.tick(now: at(6)), [.send(.ping(2))])
        _ = a.closeLocally("done")
        XCTAssertEqual(a.askForAcknowledgement(now: at(7)), [], "not once closed")
    }

    func testTooLargeAndProtocolErrors() {
        var small = SessionLifecycle.Limits()
        small.maxMessage = 4
        var a = SessionLifecycle(inviterAt: t0, name: "", context: [], inviteTimeout: 30, limits: small)
        _ = a.handshakeCompleted(remotePeerID: "b", expectedPeerID: nil, now: at(0))
        XCTAssertEqual(a.received(.invite(name: "x", context: [], timeoutMilliseconds: 1), now: at(0)).first,
                       .send(.close(reason: .protocolError, text: "unexpected invite while inviting")))
        var c = SessionLifecycle(inviterAt: t0, name: "", context: [], inviteTimeout: 30, limits: small)
        _ = c.handshakeCompleted(remotePeerID: "b", expectedPeerID: nil, now: at(0))
        _ = c.received(.accept(), now: at(0))
        XCTAssertEqual(c.received(.data(more: false, bytes: [1, 2, 3, 4, 5]), now: at(0)).last,
                       .finish(.tooLarge, "message of more than 5 bytes exceeds the 4-byte limit"))
    }

    func testTransportLossReasons() {
        var handshaking = inviter()
        guard case .finish(.handshakeFailed, let text)? = handshaking.transportClosed("EOF").first else { return XCTFail() }
        XCTAssertTrue(text.contains("--max-pending") && text.contains("EOF"), text)
        var connected = inviter()
        _ = connected.handshakeCompleted(remotePeerID: "b", expectedPeerID: "b", now: at(0))
        _ = connected.received(.accept(), now: at(0))
        XCTAssertEqual(connected.transportClosed("EOF"), [.finish(.keepaliveLost, "the connection broke without a close: EOF")])
        XCTAssertEqual(connected.transportClosed("again"), [], "closed once")
    }
}
