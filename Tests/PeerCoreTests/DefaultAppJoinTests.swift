import FoundationEssentials
import XCTest
@testable import PeerCore

/// The default app joining a session accepted for an app alone, as a
/// table: each row is a start, the events, and the actions and phase they give.
final class DefaultAppJoinTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1000)

    private typealias Event = (inout DefaultAppJoin) -> [DefaultAppJoin.Action]

    private struct Row {
        var what: String
        var joined = false
        var events: [(Event, [DefaultAppJoin.Action])]
        var phase: DefaultAppJoin.Phase
    }

    func testTheTable() {
        let t0 = t0
        let invite: Event = { $0.invite(context: [7], timeout: 30, now: t0) }
        let peerInvites: Event = { $0.peerInvited(context: [9], timeout: 20, now: t0) }
        let rows: [Row] = [
            Row(what: "we invite; the peer accepts",
                events: [(invite, [.sendInvite(context: [7], timeoutMilliseconds: 30_000)]), ({ $0.peerAccepted() }, [.joined])],
                phase: .joined),
            Row(what: "inviting twice sends once",
                events: [(invite, [.sendInvite(context: [7], timeoutMilliseconds: 30_000)]), (invite, [])],
                phase: .inviting(deadline: t0.addingTimeInterval(30))),
            Row(what: "we invite; the peer declines",
                events: [(invite, [.sendInvite(context: [7], timeoutMilliseconds: 30_000)]),
                         ({ $0.peerEnded(.declined, text: "no") }, [.failed(.declined, detail: "no")])],
                phase: .appsOnly),
            Row(what: "we invite; nobody answers",
                events: [(invite, [.sendInvite(context: [7], timeoutMilliseconds: 30_000)]),
                         ({ $0.tick(now: t0.addingTimeInterval(29)) }, []),
                         ({ $0.tick(now: t0.addingTimeInterval(30)) }, [.sendLeave(.timedOut), .failed(.timedOut, detail: "nobody answered in time")])],
                phase: .appsOnly),
            Row(what: "the peer invites; this host accepts",
                events: [(peerInvites, [.decide(context: [9], timeoutSeconds: 20)]), ({ $0.decided(accept: true) }, [.sendAccept, .joined])],
                phase: .joined),
            Row(what: "the peer invites; this host declines, and a late answer does nothing",
                events: [(peerInvites, [.decide(context: [9], timeoutSeconds: 20)]), ({ $0.decided(accept: false) }, [.sendDecline(.declined)]),
                         ({ $0.decided(accept: true) }, [])],
                phase: .appsOnly),
            Row(what: "the peer invites twice: decided once",
                events: [(peerInvites, [.decide(context: [9], timeoutSeconds: 20)]), (peerInvites, [])],
                phase: .invited(deadline: t0.addingTimeInterval(20))),
            Row(what: "the peer invites; nobody decides in time",
                events: [(peerInvites, [.decide(context: [9], timeoutSeconds: 20)]),
                         ({ $0.tick(now: t0.addingTimeInterval(20)) }, [.sendDecline(.timedOut), .withdrawn])],
                phase: .appsOnly),
            Row(what: "the peer withdraws its invitation",
                events: [(peerInvites, [.decide(context: [9], timeoutSeconds: 20)]), ({ $0.peerEnded(.timedOut, text: "") }, [.withdrawn])],
                phase: .appsOnly),
            Row(what: "crossing: we invited, then the peer's came",
                events: [(invite, [.sendInvite(context: [7], timeoutMilliseconds: 30_000)]), (peerInvites, [.sendAccept, .joined]),
                         ({ $0.peerAccepted() }, [])],
                phase: .joined),
            Row(what: "crossing: the peer invited, then ours",
                events: [(peerInvites, [.decide(context: [9], timeoutSeconds: 20)]), (invite, [.sendAccept, .joined])],
                phase: .joined),
            Row(what: "a session that carries the default app answers an invitation and ignores the rest",
                joined: true,
                events: [(peerInvites, [.sendAccept]), (invite, []), ({ $0.peerAccepted() }, []), ({ $0.peerEnded(.left, text: "") }, []),
                         ({ $0.decided(accept: false) }, [])],
                phase: .joined),
            Row(what: "an accept or decline nobody asked for does nothing",
                events: [({ $0.peerAccepted() }, []), ({ $0.peerEnded(.declined, text: "") }, [])],
                phase: .appsOnly),
            Row(what: "the peer's timeout is held to 1 to 300 s",
                events: [({ $0.peerInvited(context: [], timeout: 5000, now: t0) }, [.decide(context: [], timeoutSeconds: 300)])],
                phase: .invited(deadline: t0.addingTimeInterval(300))),
        ]
        for row in rows {
            var join = DefaultAppJoin(joined: row.joined)
            for (index, (event, expected)) in row.events.enumerated() {
                XCTAssertEqual(event(&join), expected, "\(row.what): event \(index + 1)")
            }
            XCTAssertEqual(join.phase, row.phase, row.what)
            XCTAssertEqual(join.isJoined, row.phase == .joined, row.what)
        }
    }
}
