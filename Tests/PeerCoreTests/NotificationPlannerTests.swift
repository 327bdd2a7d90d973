import FoundationEssentials
import XCTest
import PeerProtocol
@testable import PeerTools

/// The agent's decisions (issue 45, point 2), as tables: what each event
/// shows, how a notification is replaced and closed, what a button does,
/// the rate limit, a server without buttons, and no markup from a peer.
final class NotificationPlannerTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let peer = UUID(uuidString: "00000000-0000-0000-0000-000000000001")!

    private func planner(_ capabilities: [String] = ["actions", "body-markup", "body"]) -> NotificationPlanner {
        var planner = NotificationPlanner()
        planner.capabilities(capabilities)
        return planner
    }

    private func offer(_ id: String, name: String = "laptop", files: Int = 3, bytes: Int64 = 3 << 20, app: String? = nil) -> ControlEvent {
        var info = TransferInfo(id: id, direction: .receive, peer: peer, name: name, state: .offered, totalFiles: files, totalBytes: bytes,
                                expires: t0.addingTimeInterval(60))
        info.app = app
        return ControlEvent(seq: 1, type: .transferOffered, time: t0, transfer: info)
    }

    private func transfer(_ type: EventKind, _ id: String, state: TransferState, bytes: Int64 = 0, reason: FlowEndReason? = nil,
                          acceptedBy: String? = nil) -> ControlEvent {
        var info = TransferInfo(id: id, direction: .receive, peer: peer, name: "laptop", state: state,
                                totalFiles: 3, totalBytes: 3 << 20, acceptedFiles: 3, acceptedBytes: 3 << 20,
                                filesDone: bytes == 3 << 20 ? 3 : 1, bytes: bytes, reason: reason,
                                directory: "/var/lib/peerd/downloads/laptop")
        info.folder = "laptop"
        info.acceptedBy = acceptedBy
        return ControlEvent(seq: 2, type: type, time: t0, transfer: info)
    }

    private func requests(_ actions: [AgentAction]) -> [NotificationRequest] {
        actions.compactMap { if case .notify(let request) = $0 { request } else { nil } }
    }

    func testAnOfferBecomesItsProgressThenItsEndInOneNotification() {
        var p = planner()
        let shown = requests(p.event(offer("T1"), now: t0))
        XCTAssertEqual(shown.count, 1)
        XCTAssertEqual(shown[0].summary, "laptop offers files")
        XCTAssertEqual(shown[0].body, "3 files, 3.0 MiB")
        XCTAssertEqual(shown[0].actions.map(\.key), ["accept", "decline", "show"])
        XCTAssertTrue(shown[0].waitsForAnswer)
        XCTAssertNil(shown[0].replacing)
        p.shown(.transfer("T1"), id: 41)
        XCTAssertEqual(p.invoked(41, action: "accept"), [.acceptTransfer("T1")])
        let progress = requests(p.event(transfer(.transferProgress, "T1", state: .active, bytes: 1 << 20), now: t0.addingTimeInterval(1)))
        XCTAssertEqual(progress.first?.replacing, 41, "progress replaces the offer (replaces_id)")
        XCTAssertEqual(progress.first?.progress, 33)
        XCTAssertTrue(progress.first?.actions.isEmpty ?? false)
        XCTAssertEqual(p.event(transfer(.transferProgress, "T1", state: .active, bytes: 2 << 20), now: t0.addingTimeInterval(1.5)), [],
                       "at most one update a second")
        let end = requests(p.event(transfer(.transferCompleted, "T1", state: .completed, bytes: 3 << 20), now: t0.addingTimeInterval(3)))
        XCTAssertEqual(end.first?.replacing, 41)
        XCTAssertEqual(end.first?.summary, "Received from laptop")
        XCTAssertEqual(end.first?.actions.map(\.label), ["Save to Downloads"], "the service's folder is not the user's to open")
        XCTAssertEqual(p.invoked(41, action: "open-folder"), [], "nothing is the user's to open before it moved")
        XCTAssertEqual(p.invoked(41, action: "save"), [.moveFiles(transfer: "T1", peer: peer, name: "laptop", folder: "laptop", byRule: false)])
        let saved = requests(p.moved(transfer: "T1", peer: peer, name: "laptop", into: "/home/u/Downloads/laptop", files: 3, bytes: 3 << 20,
                                     failed: 0, byRule: false, now: t0.addingTimeInterval(4)))
        XCTAssertEqual(saved.first?.replacing, 41)
        XCTAssertEqual(saved.first?.summary, "Saved from laptop")
        XCTAssertEqual(saved.first?.body, "3 files, 3.0 MiB in /home/u/Downloads/laptop")
        XCTAssertEqual(saved.first?.actions.map(\.label), ["Open folder"])
        XCTAssertEqual(p.invoked(41, action: "open-folder"), [.openFolder("/home/u/Downloads/laptop")])
        p.closed(41)
        XCTAssertEqual(p.invoked(41, action: "open-folder"), [], "a closed notification answers nothing")
    }

    /// Settled elsewhere: the prompt closes.
    func testAnOfferDeclinedOrExpiredElsewhereClosesItsPrompt() {
        let rows: [(String, (inout NotificationPlanner) -> [AgentAction])] = [
            ("declined in peerctl", { $0.event(self.transfer(.transferFailed, "T1", state: .declined, reason: .declined), now: self.t0) }),
            ("timed out", { $0.event(self.transfer(.transferFailed, "T1", state: .failed, reason: .timedOut), now: self.t0) }),
            ("expired here first", { $0.tick(now: self.t0.addingTimeInterval(61)) }),
        ]
        for (name, settle) in rows {
            var p = planner()
            _ = p.event(offer("T1"), now: t0)
            p.shown(.transfer("T1"), id: 7)
            XCTAssertEqual(settle(&p), [.close(7)], name)
            XCTAssertEqual(p.tick(now: t0.addingTimeInterval(120)), [], "\(name): closed once")
        }
    }

    func testAnInvitationAsksAndClosesWhenThePeersStateChanges() {
        var p = planner()
        let invitation = InvitationInfo(id: "I1", peer: peer, name: "desk", peerId: "abc", context: "<b>hi</b>", expires: t0.addingTimeInterval(30))
        let shown = requests(p.event(ControlEvent(seq: 1, type: .invitation, time: t0, invitation: invitation), now: t0))
        XCTAssertEqual(shown.first?.summary, "desk invites you")
        XCTAssertEqual(shown.first?.body, "A session with this host.\n“&lt;b&gt;hi&lt;/b&gt;”", "a peer's words are never markup")
        p.shown(.invitation("I1"), id: 9)
        XCTAssertEqual(p.invoked(9, action: "decline"), [.declineInvitation("I1")])
        XCTAssertEqual(p.invoked(9, action: "accept"), [.acceptInvitation("I1")])
        let row = PeerSnapshot(id: peer, peerId: "abc", name: "desk", state: .connected, endpoints: [], info: [:], lastSeen: t0, lost: false)
        XCTAssertEqual(p.event(ControlEvent(seq: 2, type: .stateChanged, time: t0, peer: row), now: t0), [.close(9)], "accepted elsewhere")
    }

    /// What waited before the agent started is shown; one shown already
    /// is updated in place; a transfer under way or sent is not.
    func testWhatWaitsAtStartIsShownOnce() {
        var p = planner()
        let invitation = InvitationInfo(id: "I1", peer: peer, name: "desk", peerId: "abc", context: "", expires: t0.addingTimeInterval(30))
        let offered = TransferInfo(id: "T1", direction: .receive, peer: peer, name: "laptop", state: .offered, totalFiles: 1, totalBytes: 1)
        let active = TransferInfo(id: "T2", direction: .receive, peer: peer, name: "laptop", state: .active, totalFiles: 1, totalBytes: 1)
        let sent = TransferInfo(id: "T3", direction: .send, peer: peer, name: "laptop", state: .offered, totalFiles: 1, totalBytes: 1)
        let first = requests(p.waiting(invitations: [invitation], transfers: [offered, active, sent], now: t0))
        XCTAssertEqual(first.map(\.key), [.invitation("I1"), .transfer("T1")])
        p.shown(.invitation("I1"), id: 1)
        p.shown(.transfer("T1"), id: 2)
        let again = requests(p.waiting(invitations: [invitation], transfers: [offered], now: t0))
        XCTAssertEqual(again.map(\.replacing), [1, 2], "shown again in place, not beside")
    }

    func testAnAppsTrafficIsLeftToItsOwnClients() {
        var p = planner()
        XCTAssertEqual(p.event(offer("T1", app: "chat"), now: t0), [])
        let invitation = InvitationInfo(id: "I1", peer: peer, name: "desk", peerId: "abc", context: "", expires: t0, app: "chat")
        XCTAssertEqual(p.event(ControlEvent(seq: 1, type: .invitation, time: t0, invitation: invitation), now: t0), [])
    }

    /// A flood from one peer: five, then one notice that counts the rest
    /// and updates in place; another peer is not held back by it.
    func testAFloodFromOnePeerIsHeldBackInOneNotice() {
        var p = planner()
        var fresh = 0
        var notices: [NotificationRequest] = []
        for n in 0..<40 {
            for request in requests(p.event(offer("T\(n)"), now: t0)) {
                if case .heldBack = request.key { notices.append(request) } else { fresh += 1 }
            }
            if n == 5 { p.shown(.heldBack(peer.uuidString), id: 99) }
        }
        XCTAssertEqual(fresh, Int(NotificationRate.burst))
        XCTAssertEqual(notices.count, 35)
        XCTAssertEqual(notices.last?.summary, "laptop: 35 more held back")
        XCTAssertEqual(notices.last?.replacing, 99, "the notice updates in place")
        var other = TransferInfo(id: "O1", direction: .receive, peer: UUID(), name: "phone", state: .offered, totalFiles: 1, totalBytes: 1)
        other.files = [TransferFileInfo(index: 0, name: "a.txt", size: 1, verdict: "pending")]
        XCTAssertEqual(requests(p.event(ControlEvent(seq: 3, type: .transferOffered, time: t0, transfer: other), now: t0)).first?.summary,
                       "phone offers files")
        let later = requests(p.event(offer("T99"), now: t0.addingTimeInterval(NotificationRate.refill)))
        XCTAssertEqual(later.first?.summary, "laptop offers files", "the bucket refills")
    }

    /// A server without buttons gets the words to answer with; one
    /// without markup gets the text as it is.
    func testAServerWithoutActionsOrMarkup() {
        var p = planner(["body"])
        let shown = requests(p.event(offer("T1", name: "a<b>"), now: t0))
        XCTAssertEqual(shown.first?.actions, [])
        XCTAssertEqual(shown.first?.body, "3 files, 3.0 MiB\npeerctl accept-transfer T1")
        XCTAssertEqual(shown.first?.summary, "a<b> offers files", "the summary is plain text")
    }

    func testAPeersTextLosesControlCharactersAndIsBounded() {
        XCTAssertEqual(NotificationText.peerText("evil\u{202E}txt.exe\n"), "evil txt.exe ")
        XCTAssertEqual(NotificationText.peerText(String(repeating: "x", count: 200)).count, NotificationText.maxPeerText)
        XCTAssertEqual(NotificationText.files(count: 1, bytes: 1536, firstName: "a.txt"), "a.txt (1.5 KiB)")
    }

    /// Quick Save: a transfer the rule accepted is moved first and told
    /// after, "(Quick Save)", with Open folder on the rule's folder; a
    /// move that found nothing (another agent of the user took it) says
    /// nothing; one that left files says so.
    func testQuickSaveMovesFirstAndTellsAfter() {
        var p = planner()
        XCTAssertEqual(p.event(transfer(.transferCompleted, "Q1", state: .completed, bytes: 3 << 20, acceptedBy: "quickSave"), now: t0),
                       [.moveFiles(transfer: "Q1", peer: peer, name: "laptop", folder: "laptop", byRule: true)])
        let told = requests(p.moved(transfer: "Q1", peer: peer, name: "laptop", into: "/home/u/In", files: 2, bytes: 10, failed: 1,
                                    byRule: true, now: t0))
        XCTAssertEqual(told.first?.summary, "Saved from laptop (Quick Save)")
        XCTAssertEqual(told.first?.body, "2 files, 10 B in /home/u/In\n1 could not be moved: they wait in peerd's downloads (peerctl downloads)")
        p.shown(.transfer("Q1"), id: 9)
        XCTAssertEqual(p.invoked(9, action: "open-folder"), [.openFolder("/home/u/In")])
        XCTAssertEqual(p.moved(transfer: "Q2", peer: peer, name: "laptop", into: "/home/u/In", files: 0, bytes: 0, failed: 0, byRule: true, now: t0), [])
        let failed = requests(p.moveFailed(transfer: "Q4", peer: peer, name: "laptop", folder: "laptop", into: "/gone", reason: "cannot use the folder /gone",
                                           byRule: true, now: t0))
        XCTAssertEqual(failed.first?.summary, "Could not save from laptop (Quick Save)")
        XCTAssertEqual(failed.first?.body, "cannot use the folder /gone (into /gone). The files wait in peerd's downloads: peerctl fetch laptop")
        var app = transfer(.transferCompleted, "Q3", state: .completed, bytes: 3 << 20, acceptedBy: "quickSave")
        app.transfer?.app = "chat"
        XCTAssertEqual(p.event(app, now: t0), [], "an app's files are its clients'")
    }
}
