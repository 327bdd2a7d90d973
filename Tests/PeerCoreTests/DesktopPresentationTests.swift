import FoundationEssentials
import XCTest
import PeerProtocol
@testable import PeerTools

/// The desktop app's list and detail (issue 45, point 1), as tables:
/// sections in a fixed order with the model's order inside, states in
/// words, and the actions each state allows.
final class DesktopPresentationTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func peer(_ n: Int, _ name: String, paired: Bool = false, lost: Bool = false, endpoints: Bool = true, learned: String? = nil,
                      state: ConnectionState = .notConnected) -> PeerSnapshot {
        var row = PeerSnapshot(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!, peerId: String(repeating: "\(n)", count: 32), name: name,
                               state: state, endpoints: endpoints ? [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.0.\(n)", port: 7717)] : [],
                               info: [:], lastSeen: t0, lost: lost)
        row.paired = paired
        row.learnedAddress = learned
        return row
    }

    func testSectionsKeepTheirOrderAndTheModelsOrderInside() {
        let peers = [peer(1, "alpha"), peer(2, "beta", paired: true), peer(3, "gamma", endpoints: false, learned: "10.0.2.7:7717"),
                     peer(4, "delta\u{7}", lost: true), peer(5, "omega", paired: true, state: .connected)]
        let sections = PeerListPresentation.sections(peers, states: [peers[4].id: .connected])
        XCTAssertEqual(sections.map(\.title), ["Paired", "Nearby", "Added"])
        XCTAssertEqual(sections[0].rows.map(\.name), ["beta", "omega"])
        XCTAssertEqual(sections[0].rows.map(\.state), ["not connected", "connected"])
        XCTAssertEqual(sections[1].rows.map(\.name), ["alpha", "delta "], "a peer's name loses its control characters")
        XCTAssertEqual(sections[1].rows.map(\.state), ["not connected", "lost"])
        XCTAssertEqual(sections[2].rows.map(\.name), ["gamma"])
        XCTAssertEqual(PeerListPresentation.sections([peer(1, "alpha")], states: [:]).map(\.title), ["Nearby"], "empty sections are left out")
    }

    func testTheDetailOffersWhatTheStateAllows() {
        let rows: [(String, PeerSnapshot, ConnectionState, [PeerDetailPresentation.Action])] = [
            ("nearby, not connected", peer(1, "a"), .notConnected, [.invite, .pair]),
            ("connecting", peer(1, "a"), .connecting, [.disconnect, .pair]),
            ("paired and connected", peer(1, "a", paired: true), .connected, [.disconnect, .unpair, .quickSaveOn, .quickSaveChoose]),
            ("lost", peer(1, "a", lost: true), .notConnected, []),
        ]
        for (name, row, state, actions) in rows {
            XCTAssertEqual(PeerDetailPresentation(row, state: state).actions, actions, name)
        }
        XCTAssertEqual(PeerDetailPresentation(peer(1, "a"), state: .connected, pairing: .init(id: "P1", code: nil)).actions, [.disconnect],
                       "no second pairing while one is under way")
        let detail = PeerDetailPresentation(peer(3, "gamma", endpoints: false, learned: "10.0.2.7:7717"), state: .notConnected)
        XCTAssertEqual(detail.title, "gamma")
        XCTAssertEqual(detail.facts.first { $0.label == "Addresses" }?.value, "10.0.2.7:7717", "an added peer shows the address it was added by")
        XCTAssertEqual(detail.facts.first { $0.label == "State" }?.value, "not connected")
        XCTAssertEqual(PeerDetailPresentation.Action.allCases.map(\.label),
                       ["Invite", "Disconnect", "Pair", "Unpair", "Turn on Quick Save", "Quick Save into…", "Turn off Quick Save"])
    }

    /// Issue 45: the detail says a connected peer's paths and round trip
    /// (the `peer` answer), and nothing of them for one not connected.
    func testTheDetailShowsPathsAndRoundTrip() {
        let row = peer(1, "a")
        var details = PeerResult(peer: row)
        details.datagrams = DatagramInfo(path: "up", port: 7718, roundTripMs: 0.4123, sent: 3, received: 2)
        details.bulk = BulkPathInfo(path: BulkPathInfo.lane)
        let connected = PeerDetailPresentation(row, state: .connected, details: details)
        XCTAssertEqual(connected.facts.first { $0.label == "Round trip" }?.value, "0.41 ms")
        XCTAssertEqual(connected.facts.first { $0.label == "Files and streams" }?.value, "lane (a connection of its own beside the session)")
        XCTAssertEqual(connected.facts.first { $0.label == "Datagrams" }?.value, "up, round trip 0.4123 ms, UDP port 7718; sent 3, received 2")
        details.bulk = BulkPathInfo(path: BulkPathInfo.session, reason: "the peer's release has no lane")
        details.datagrams?.roundTripMs = 12.6
        let slow = PeerDetailPresentation(row, state: .connected, details: details)
        XCTAssertEqual(slow.facts.first { $0.label == "Round trip" }?.value, "13 ms")
        XCTAssertEqual(slow.facts.first { $0.label == "Files and streams" }?.value, "session stream: the peer's release has no lane")
        XCTAssertNil(PeerDetailPresentation(row, state: .notConnected, details: details).facts.first { $0.label == "Round trip" })
        XCTAssertNil(PeerDetailPresentation(peer(2, "b"), state: .connected, details: details).facts.first { $0.label == "Round trip" },
                     "another peer's answer is not this one's")
    }

    /// Issue 45: a paired peer's Quick Save rule, shown, and changed from
    /// the detail only by its own user.
    func testQuickSaveIsShownAndTheUsersToChange() {
        let paired = peer(1, "a", paired: true)
        let mine = QuickSaveRule(uid: 1000, folder: "/home/ann/In")
        // (rule, uid, fact, Quick Save actions)
        let rows: [(QuickSaveRule?, UInt32?, String, [PeerDetailPresentation.Action])] = [
            (nil, 1000, "off: its files are offered first", [.quickSaveOn, .quickSaveChoose]),
            (mine, 1000, "on: its files come without asking, into /home/ann/In", [.quickSaveChoose, .quickSaveOff]),
            (mine, 1001, "another user's (uid 1000)", []),
        ]
        for (rule, uid, fact, actions) in rows {
            let detail = PeerDetailPresentation(paired, state: .connected, quickSave: rule, uid: uid)
            XCTAssertEqual(detail.facts.first { $0.label == "Quick Save" }?.value, fact)
            XCTAssertEqual(Array(detail.actions.drop { ![.quickSaveOn, .quickSaveChoose, .quickSaveOff].contains($0) }), actions)
        }
        XCTAssertNil(PeerDetailPresentation(peer(1, "a"), state: .connected, quickSave: mine, uid: 1000).facts.first { $0.label == "Quick Save" },
                     "an unpaired peer has no rule to show")
    }
}

/// The desktop programs' command lines, as a table.
final class DesktopArgumentsTests: XCTestCase {
    func testOptionsTakeOneValueAndMistakesSayWhat() {
        let options: Set<String> = ["--socket", "--size"]
        let rows: [([String], Result<DesktopArguments.Parsed, DesktopArguments.UsageMistake>)] = [
            ([], .success(.options([:], files: []))),
            (["--socket", "/run/x.sock", "--size", "360x640"], .success(.options(["--socket": "/run/x.sock", "--size": "360x640"], files: []))),
            (["--socket", "a", "--socket", "b"], .success(.options(["--socket": "b"], files: []))),
            (["a.txt"], .failure(.init(text: "unknown argument 'a.txt'"))),
            (["--size", "1x1", "--help"], .success(.help)),
            (["-h"], .success(.help)),
            (["--socket"], .failure(.init(text: "--socket needs a value"))),
            (["--socket", ""], .failure(.init(text: "--socket needs a value"))),
            (["--bogus"], .failure(.init(text: "unknown argument '--bogus'"))),
        ]
        for (words, expected) in rows {
            XCTAssertEqual(DesktopArguments.parse(words, options: options), expected, words.joined(separator: " "))
        }
        // peerd-gtk takes files (its .desktop entry's %F).
        XCTAssertEqual(DesktopArguments.parse(["a.txt", "--size", "360x640", "b c.txt", "--", "--odd"], options: options, files: true),
                       .success(.options(["--size": "360x640"], files: ["a.txt", "b c.txt", "--odd"])))
    }
}

/// What waits for the desktop app's user, as a table of events.
final class DesktopInboxTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let peer = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!

    private func pairing(_ type: EventKind, initiator: Bool, code: String? = "123456", id: String = "P1") -> ControlEvent {
        ControlEvent(seq: 1, type: type, time: t0, pairing: PairingInfo(id: id, peer: peer, name: "host2", peerId: "abc", initiator: initiator,
                                                                         code: code, expires: t0))
    }

    private func transfer(_ type: EventKind, _ id: String, state: TransferState, bytes: Int64 = 0) -> ControlEvent {
        var info = TransferInfo(id: id, direction: .receive, peer: peer, name: "host2", state: state, totalFiles: 1, totalBytes: 4 << 20,
                                acceptedFiles: 1, acceptedBytes: 4 << 20, bytes: bytes)
        if type == .transferOffered { info.files = [TransferFileInfo(index: 0, name: "a.bin", size: 4 << 20, verdict: "pending")] }
        return ControlEvent(seq: 2, type: type, time: t0, transfer: info)
    }

    func testPairingsShowTheirCodeOrAskForItAndGoWhenSettled() {
        var inbox = DesktopInbox()
        inbox.apply(pairing(.pairingRequest, initiator: false, code: nil))
        XCTAssertEqual(inbox.pairings[peer], .init(id: "P1", code: nil), "the responder types the code")
        inbox.apply(pairing(.paired, initiator: false, id: "P0"))
        XCTAssertNotNil(inbox.pairings[peer], "another pairing's end leaves this one")
        inbox.apply(pairing(.paired, initiator: false))
        XCTAssertNil(inbox.pairings[peer])
        inbox.apply(pairing(.pairingCode, initiator: true))
        XCTAssertEqual(inbox.pairings[peer]?.code, "123456", "the initiator shows its code")
        inbox.apply(pairing(.pairingFailed, initiator: true))
        XCTAssertNil(inbox.pairings[peer])
    }

    func testWhatWaitsBeforeTheAppStartsIsTakenIn() {
        var inbox = DesktopInbox()
        let offered = TransferInfo(id: "T1", direction: .receive, peer: peer, name: "host2", state: .offered, totalFiles: 2, totalBytes: 2048)
        let active = TransferInfo(id: "T2", direction: .receive, peer: peer, name: "host2", state: .active, totalFiles: 1, totalBytes: 1)
        let sent = TransferInfo(id: "T3", direction: .send, peer: peer, name: "host2", state: .offered, totalFiles: 1, totalBytes: 1)
        let done = TransferInfo(id: "T4", direction: .receive, peer: peer, name: "host2", state: .completed, totalFiles: 1, totalBytes: 1)
        inbox.catchUp(invitations: [InvitationInfo(id: "I1", peer: peer, name: "host2", peerId: "abc", context: "", expires: t0)],
                      pairings: [PairingInfo(id: "P1", peer: peer, name: "host2", peerId: "abc", initiator: false, code: nil, expires: t0)],
                      transfers: [offered, active, sent, done], now: t0)
        XCTAssertEqual(inbox.invitations[peer], "I1")
        XCTAssertEqual(inbox.pairings[peer], .init(id: "P1", code: nil))
        XCTAssertEqual(inbox.offers[peer]?.map(\.id), ["T1", "T2"])
        XCTAssertEqual(inbox.offers[peer]?.map(\.waiting), [true, false])
    }

    func testShowFindsThePeerOfAnOfferAPairingOrAnInvitation() {
        let other = UUID(uuidString: "00000000-0000-0000-0000-000000000009")!
        let transfers = [TransferInfo(id: "T1", direction: .receive, peer: peer, name: "host2", state: .offered, totalFiles: 1, totalBytes: 1)]
        let pairings = [PairingInfo(id: "P1", peer: other, name: "host9", peerId: "x", initiator: false, code: nil, expires: t0)]
        let invitations = [InvitationInfo(id: "I1", peer: other, name: "host9", peerId: "x", context: "", expires: t0)]
        XCTAssertEqual(DesktopInbox.peer(of: "T1", transfers: transfers, pairings: pairings, invitations: invitations), peer)
        XCTAssertEqual(DesktopInbox.peer(of: "P1", transfers: transfers, pairings: pairings, invitations: invitations), other)
        XCTAssertEqual(DesktopInbox.peer(of: "I1", transfers: transfers, pairings: pairings, invitations: invitations), other)
        XCTAssertNil(DesktopInbox.peer(of: "nope", transfers: transfers, pairings: pairings, invitations: invitations))
    }

    func testAnInvitationWaitsUntilThePeersStateChanges() {
        var inbox = DesktopInbox()
        inbox.apply(ControlEvent(seq: 1, type: .invitation, time: t0,
                                 invitation: InvitationInfo(id: "I1", peer: peer, name: "host2", peerId: "abc", context: "", expires: t0)))
        XCTAssertEqual(inbox.invitations[peer], "I1")
        inbox.apply(ControlEvent(seq: 2, type: .invitation, time: t0,
                                 invitation: InvitationInfo(id: "I2", peer: peer, name: "host2", peerId: "abc", context: "", expires: t0, app: "chat")))
        XCTAssertEqual(inbox.invitations[peer], "I1", "an app's invitation is its own clients'")
        let row = PeerSnapshot(id: peer, peerId: "abc", name: "host2", state: .connected, endpoints: [], info: [:], lastSeen: t0, lost: false)
        inbox.apply(ControlEvent(seq: 3, type: .stateChanged, time: t0, peer: row))
        XCTAssertNil(inbox.invitations[peer])
    }

    func testAnOfferWaitsThenShowsItsProgressThenGoes() {
        var inbox = DesktopInbox()
        inbox.apply(transfer(.transferOffered, "T1", state: .offered))
        XCTAssertEqual(inbox.offers[peer], [.init(id: "T1", files: "a.bin (4.0 MiB)", waiting: true, percent: 0)])
        inbox.apply(transfer(.transferProgress, "T1", state: .active, bytes: 1 << 20))
        XCTAssertEqual(inbox.offers[peer], [.init(id: "T1", files: "a.bin (4.0 MiB)", waiting: false, percent: 25)])
        inbox.apply(transfer(.transferProgress, "T9", state: .active, bytes: 1 << 20))
        XCTAssertEqual(inbox.offers[peer]?.count, 1, "progress of a transfer never offered here adds nothing")
        var completed = transfer(.transferCompleted, "T1", state: .completed, bytes: 4 << 20)
        completed.transfer?.directory = "/srv/peerd/downloads/host2"
        completed.transfer?.folder = "host2"
        inbox.apply(completed)
        XCTAssertEqual(inbox.offers[peer], [.init(id: "T1", files: "a.bin (4.0 MiB)", waiting: false, percent: 100, folder: "host2")],
                       "a finished transfer stays, with its folder in the service's downloads, for Save to Downloads")
        inbox.saved("T1", of: peer, into: "/home/ann/Downloads/host2")
        XCTAssertEqual(inbox.offers[peer]?.first?.savedTo, "/home/ann/Downloads/host2", "then its user's folder, for Open folder")
        inbox.dismiss("T1", of: peer)
        XCTAssertNil(inbox.offers[peer])
        inbox.apply(transfer(.transferOffered, "T5", state: .offered))
        inbox.apply(transfer(.transferFailed, "T5", state: .failed))
        XCTAssertNil(inbox.offers[peer], "a failed one goes")
        for n in 0..<20 { inbox.apply(transfer(.transferOffered, "F\(n)", state: .offered)) }
        XCTAssertEqual(inbox.offers[peer]?.map(\.id), (12..<20).map { "F\($0)" }, "a flood keeps the newest")
    }
}

/// What the desktop app says when peerd cannot be reached.
final class DesktopProblemTests: XCTestCase {
    func testEachFailureSaysWhatToDo() {
        let rows: [(Int32, String)] = [
            (EACCES, "Join group peerd"), (ENOENT, "sudo systemctl start peerd"), (ECONNREFUSED, "sudo systemctl start peerd"),
            (ETIMEDOUT, "peerctl doctor tells more"),
        ]
        for (code, words) in rows {
            XCTAssertTrue(DesktopProblem.unreachable(path: "/run/peerd/peerd.sock", errno: code).contains(words), "errno \(code)")
        }
        XCTAssertTrue(DesktopProblem.unreachable(path: "/x.sock", errno: EACCES).contains("/x.sock"), "the path is named")
    }
}
