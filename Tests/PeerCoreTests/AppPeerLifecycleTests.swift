import FoundationEssentials
import XCTest
@testable import PeerCore
import PeerProtocol

/// One app's state with one peer, as tables of events and the actions
/// and states they give.
final class AppPeerLifecycleTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1000)

    func testInvitedHereAClientDecidesOrNobodyHoldsTheApp() {
        var invited = AppPeerLifecycle()
        XCTAssertEqual(invited.peerInvited(context: [1], timeout: 30, clients: true, autoAccept: false, now: t0),
                       [.askClients(context: [1]), .stateChanged(.connecting, reason: nil)])
        XCTAssertEqual(invited.state, .connecting)
        XCTAssertEqual(invited.answered(accept: true), [.sendAccept, .stateChanged(.connected, reason: nil)])
        XCTAssertEqual(invited.answered(accept: false), [], "an answer after the decision does nothing")

        var declined = AppPeerLifecycle()
        _ = declined.peerInvited(context: [], timeout: 30, clients: true, autoAccept: false, now: t0)
        XCTAssertEqual(declined.answered(accept: false), [.sendDecline(.declined), .stateChanged(.notConnected, reason: .declined)])

        var nobody = AppPeerLifecycle()
        XCTAssertEqual(nobody.peerInvited(context: [], timeout: 30, clients: false, autoAccept: false, now: t0), [.sendDecline(.noClient)],
                       "no client holds the app: declined at once")
        XCTAssertEqual(nobody.phase, .notConnected(nil))
        var declared = AppPeerLifecycle()
        XCTAssertEqual(declared.peerInvited(context: [], timeout: 30, clients: false, autoAccept: true, now: t0),
                       [.sendAccept, .stateChanged(.connected, reason: nil)], "a declared app that auto-accepts needs no client")

        var auto = AppPeerLifecycle()
        XCTAssertEqual(auto.peerInvited(context: [], timeout: 30, clients: true, autoAccept: true, now: t0),
                       [.sendAccept, .stateChanged(.connected, reason: nil)])
    }

    /// Issue 42, point 3: one invitation per app and peer; a repeat
    /// replaces it; the rate is spent only by what reaches the clients.
    func testRepeatedInvitationsReplaceOneAndSpendTheRate() {
        var spent = 0
        let allow = { spent += 1; return true }
        let deny = { spent += 1; return false }
        var lifecycle = AppPeerLifecycle()
        XCTAssertEqual(lifecycle.peerInvited(context: [1], timeout: 30, clients: true, autoAccept: false, rateAllows: allow, now: t0),
                       [.askClients(context: [1]), .stateChanged(.connecting, reason: nil)])
        XCTAssertEqual(lifecycle.peerInvited(context: [2], timeout: 30, clients: true, autoAccept: false, rateAllows: allow, now: t0.addingTimeInterval(10)),
                       [.updateAsk(context: [2])], "a repeat replaces the one waiting: no second connecting")
        XCTAssertEqual(lifecycle.phase, .invited(deadline: t0.addingTimeInterval(40)), "with the repeat's deadline")
        XCTAssertEqual(lifecycle.peerInvited(context: [3], timeout: 30, clients: true, autoAccept: false, rateAllows: deny, now: t0.addingTimeInterval(20)),
                       [], "past the rate a repeat is dropped; the one waiting stands")
        XCTAssertEqual(lifecycle.phase, .invited(deadline: t0.addingTimeInterval(40)))
        XCTAssertEqual(spent, 3)

        var first = AppPeerLifecycle()
        XCTAssertEqual(first.peerInvited(context: [], timeout: 30, clients: true, autoAccept: false, rateAllows: deny, now: t0),
                       [.declineOverRate], "past the rate a first one is declined, nobody asked")
        XCTAssertEqual(first.phase, .notConnected(nil))
        spent = 0
        var auto = AppPeerLifecycle()
        _ = auto.peerInvited(context: [], timeout: 30, clients: true, autoAccept: true, rateAllows: deny, now: t0)
        XCTAssertEqual(auto.state, .connected, "an invitation accepted anyway spends nothing")
        XCTAssertEqual(auto.peerInvited(context: [], timeout: 30, clients: true, autoAccept: false, rateAllows: deny, now: t0), [.sendAccept],
                       "a connected app's repeat is answered")
        var nobody = AppPeerLifecycle()
        XCTAssertEqual(nobody.peerInvited(context: [], timeout: 30, clients: false, autoAccept: false, rateAllows: deny, now: t0), [.sendDecline(.noClient)])
        XCTAssertEqual(spent, 0, "nor does one no client could be asked about")
    }

    func testInvitingHereCrossingAndTimeouts() {
        var inviting = AppPeerLifecycle()
        XCTAssertEqual(inviting.invite(context: [7], timeout: 30, now: t0),
                       [.sendInvite(context: [7], timeoutMilliseconds: 30_000), .stateChanged(.connecting, reason: nil)])
        XCTAssertNil(inviting.invite(context: [], timeout: 30, now: t0), "inviting twice does nothing")
        XCTAssertEqual(inviting.tick(now: t0.addingTimeInterval(29)), [])
        XCTAssertEqual(inviting.tick(now: t0.addingTimeInterval(30)), [.sendLeave(.timedOut), .stateChanged(.notConnected, reason: .timedOut)])

        // Both sides invite: each accepts the other's, whichever came first.
        var crossed = AppPeerLifecycle()
        _ = crossed.invite(context: [], timeout: 30, now: t0)
        XCTAssertEqual(crossed.peerInvited(context: [], timeout: 30, clients: true, autoAccept: false, now: t0),
                       [.sendAccept, .stateChanged(.connected, reason: nil)])
        XCTAssertEqual(crossed.peerAccepted(), [], "the peer's accept of ours changes nothing more")
        var crossedLater = AppPeerLifecycle()
        _ = crossedLater.peerInvited(context: [], timeout: 30, clients: true, autoAccept: false, now: t0)
        XCTAssertEqual(crossedLater.invite(context: [], timeout: 30, now: t0), [.sendAccept, .stateChanged(.connected, reason: nil)])

        var unanswered = AppPeerLifecycle()
        _ = unanswered.peerInvited(context: [], timeout: 5, clients: true, autoAccept: false, now: t0)
        XCTAssertEqual(unanswered.tick(now: t0.addingTimeInterval(5)), [.sendDecline(.timedOut), .stateChanged(.notConnected, reason: .timedOut)])
    }

    func testLeavingAndEndings() {
        var app = AppPeerLifecycle()
        XCTAssertEqual(app.leave(), [], "nothing under way: nothing to tell")
        _ = app.invite(context: [], timeout: 30, now: t0)
        XCTAssertEqual(app.peerAccepted(), [.stateChanged(.connected, reason: nil)])
        XCTAssertEqual(app.leave(), [.sendLeave(.left), .stateChanged(.notConnected, reason: .left)])
        _ = app.invite(context: [], timeout: 30, now: t0)
        _ = app.peerAccepted()
        XCTAssertEqual(app.ended(.sessionEnded), [.stateChanged(.notConnected, reason: .sessionEnded)])
        XCTAssertEqual(app.ended(.left), [], "ended once")
        XCTAssertEqual(AppEndReason.allCases.map(\.rawValue), ["declined", "noClient", "timedOut", "left", "sessionEnded"])
        XCTAssertEqual(AppEndReason.allCases.map(\.code), [1, 2, 3, 4, 5], "the wire codes of appDecline and appLeave")
        XCTAssertEqual(AppEndReason(code: 99), .left, "a later release's reason ends the state too")
    }
}
