import FoundationEssentials
@testable import PeerCore
@testable import PeerTools
import XCTest
import PeerProtocol

/// `peerctl top`'s pure parts (issue 14, part 1), with no terminal.
final class TopLayoutTests: XCTestCase {
    func testLayoutTable() {
        let rows: [(Int, Int, Bool, TopLayout)] = [
            (39, 30, false, .tooSmall(width: 39, height: 30)),
            (120, 9, false, .tooSmall(width: 120, height: 9)),
            (120, 40, false, .sideBySide(listWidth: 60)),
            (200, 50, true, .sideBySide(listWidth: 64)),
            (85, 20, false, .sideBySide(listWidth: 42)),
            (84, 30, false, .stacked(listHeight: 10)),
            (80, 24, true, .stacked(listHeight: 8)),
            (80, 23, false, .listOnly),
            (80, 12, true, .detailOnly),
            (40, 10, false, .listOnly),
        ]
        for (width, height, open, expected) in rows {
            XCTAssertEqual(TopLayout.choose(width: width, height: height, detailOpen: open), expected, "\(width)×\(height) open=\(open)")
        }
        XCTAssertEqual(TopLayout.tooSmallText(width: 30, height: 8), "too small: 30×8, need 40×10")
    }
}

final class TopModelTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_000_000)

    private func peer(_ n: Int, _ name: String, state: ConnectionState = .notConnected, lost: Bool = false) -> PeerSnapshot {
        PeerSnapshot(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!, peerId: String(repeating: "\(n)", count: 32), name: name,
                     state: state, endpoints: [Endpoint(interface: "eth0", family: .ipv4, address: "10.0.0.\(n)", port: 7717)],
                     info: [:], lastSeen: t0, lost: lost)
    }

    private func event(_ type: EventKind, _ row: PeerSnapshot, seq: UInt64 = 1) -> ControlEvent {
        ControlEvent(seq: seq, type: type, time: t0, peer: row)
    }

    func testTheSelectionFollowsItsPeerThroughReordersAndArrivals() {
        var model = TopModel()
        model.load(peers: [peer(1, "carol"), peer(2, "alice"), peer(3, "bob")], invitations: [], pairings: [], transfers: [], queues: [])
        XCTAssertEqual(model.selected, peer(1, "").id, "the first row is selected at start")
        model.move(1)
        XCTAssertEqual(model.selectedRow?.name, "alice")
        model.sort = .name
        XCTAssertEqual(model.visible.map(\.name), ["alice", "bob", "carol"])
        XCTAssertEqual(model.selectedRow?.name, "alice", "sorting moved the row, not the selection")
        model.apply(event(.peerFound, peer(4, "aaron")))
        XCTAssertEqual(model.visible.map(\.name), ["aaron", "alice", "bob", "carol"])
        XCTAssertEqual(model.selectedRow?.name, "alice", "a new row above did not take the selection")
        model.apply(event(.stateChanged, peer(3, "bob", state: .connected)))
        model.sort = .state
        XCTAssertEqual(model.visible.first?.name, "bob")
        XCTAssertEqual(model.selectedRow?.name, "alice")
        model.move(-1)
        XCTAssertEqual(model.selectedRow?.name, "aaron", "moving goes by the shown order: bob, aaron, alice, carol")
        model.move(-5)
        XCTAssertEqual(model.selectedRow?.name, "bob", "clamped at the top")
    }

    func testALostPeerStaysInPlaceAndAnEvictedOneIsMarkedGone() {
        var model = TopModel()
        model.load(peers: [peer(1, "a"), peer(2, "b"), peer(3, "c")], invitations: [], pairings: [], transfers: [], queues: [])
        model.apply(event(.peerLost, peer(2, "b", lost: true)))
        XCTAssertEqual(model.visible.map(\.name), ["a", "b", "c"], "a lost peer never leaves the list")
        XCTAssertEqual(model.peers[peer(2, "").id]?.lost, true)
        model.apply(event(.peerRemoved, peer(3, "c", lost: true)))
        XCTAssertEqual(model.visible.map(\.name), ["a", "b", "c"])
        XCTAssertTrue(model.gone.contains(peer(3, "").id))
        model.apply(event(.peerFound, peer(3, "c")))
        XCTAssertFalse(model.gone.contains(peer(3, "").id), "a returning peer is back under its UUID")
    }

    func testTheFilterHidesRowsAndMovesAHiddenSelection() {
        var model = TopModel()
        model.load(peers: [peer(1, "kitchen"), peer(2, "office"), peer(3, "attic")], invitations: [], pairings: [], transfers: [], queues: [])
        model.select(peer(1, "").id)
        model.filter = "10.0.0.2"
        XCTAssertEqual(model.visible.map(\.name), ["office"], "addresses match too")
        XCTAssertEqual(model.selectedRow?.name, "office")
        model.filter = ""
        XCTAssertEqual(model.selectedRow?.name, "office", "clearing the filter keeps the selection")
    }

    /// The detail pane lists the peer's apps, advertised or confirmed, with their info.
    func testTheDetailShowsThePeersApps() {
        var row = peer(1, "a")
        row.info = ["apps": "chat", "chat.room": "lobby"]
        row.apps = AdvertisedApp.parse(row.info)
        var model = TopModel()
        model.load(peers: [row], invitations: [], pairings: [], transfers: [], queues: [])
        let texts = TopDetail.lines(for: row, in: model, now: t0).map(\.text)
        XCTAssertTrue(texts.contains("Apps"), "\(texts)")
        XCTAssertTrue(texts.contains("  chat  advertised  room=lobby"), "\(texts)")
    }

    func testEventsFillTheDetailAndKeepOnlyTheLatest() {
        var model = TopModel()
        let row = peer(1, "a", state: .connected)
        model.load(peers: [row], invitations: [], pairings: [], transfers: [], queues: [])
        for n in 0..<20 { model.apply(event(.peerUpdated, row, seq: UInt64(n + 1))) }
        XCTAssertEqual(model.activity[row.id]?.events.count, TopPeerActivity.maxEvents)
        XCTAssertEqual(model.lastSeq, 20)
        var delivered = ControlEvent(seq: 21, type: .delivered, time: t0, peer: row)
        delivered.delivery = DeliveryInfo(session: 1, through: 42)
        model.apply(delivered)
        XCTAssertEqual(model.activity[row.id]?.messagesDelivered, 42)
        XCTAssertEqual(model.activity[row.id]?.events.count, TopPeerActivity.maxEvents, "acknowledgements update figures, not the list")
        let invitation = InvitationInfo(id: "inv-1", peer: row.id, name: "a", peerId: row.peerId!, context: "hi", expires: t0)
        var invited = ControlEvent(seq: 22, type: .invitation, time: t0, peer: row)
        invited.invitation = invitation
        model.apply(invited)
        XCTAssertEqual(model.invitation(from: row.id)?.id, "inv-1")
        model.apply(event(.stateChanged, peer(1, "a", state: .notConnected), seq: 23))
        XCTAssertNil(model.invitation(from: row.id), "a settled invitation leaves")
    }
}

final class TopInputTests: XCTestCase {
    func testKeyDecoderTable() {
        let rows: [([UInt8], [TopKey])] = [
            ([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42], [.up, .down]),
            ([0x1B, 0x4F, 0x41], [.up]),
            ([0x1B, 0x5B, 0x35, 0x7E, 0x1B, 0x5B, 0x36, 0x7E], [.pageUp, .pageDown]),
            ([0x1B], [.escape]),
            ([0x0D, 0x7F, 0x0C, 0x03], [.enter, .backspace, .redraw, .interrupt]),
            (Array("jk/é".utf8), [.character("j"), .character("k"), .character("/"), .character("é")]),
        ]
        for (bytes, expected) in rows {
            var decoder = TopKeyDecoder()
            XCTAssertEqual(decoder.feed(bytes), expected, "\(bytes)")
        }
        var split = TopKeyDecoder()
        XCTAssertEqual(split.feed([0x1B, 0x5B]), [], "half a sequence waits")
        XCTAssertEqual(split.feed([0x41]), [.up])
    }

    func testKeysActOnTheSelectedPeer() {
        let t0 = Date(timeIntervalSince1970: 0)
        let row = PeerSnapshot(id: UUID(), peerId: "p", name: "a", state: .notConnected, endpoints: [], info: [:], lastSeen: t0, lost: false)
        var model = TopModel()
        model.load(peers: [row], invitations: [InvitationInfo(id: "i1", peer: row.id, name: "a", peerId: "p", context: "", expires: t0)],
                   pairings: [], transfers: [], queues: [])
        var keys = TopInteraction()
        XCTAssertEqual(keys.handle(.character("i"), model: &model), [.invite(row.id)])
        XCTAssertEqual(keys.handle(.character("a"), model: &model), [.accept(invitation: "i1")])
        XCTAssertEqual(keys.handle(.character("d"), model: &model), [.decline(invitation: "i1")])
        XCTAssertEqual(keys.handle(.character("p"), model: &model), [.pair(row.id)])
        XCTAssertEqual(keys.handle(.character("x"), model: &model), [], "no session to close")
        XCTAssertEqual(keys.note, "'a' has no session")
        XCTAssertEqual(keys.handle(.character("/"), model: &model), [])
        _ = keys.handle(.character("z"), model: &model)
        XCTAssertEqual(model.filter, "z", "typed into the filter, not taken as a command")
        _ = keys.handle(.escape, model: &model)
        XCTAssertEqual(model.filter, "")
        XCTAssertEqual(keys.handle(.character("q"), model: &model), [.quit])
        XCTAssertEqual(keys.handle(.interrupt, model: &model), [.quit])
        _ = keys.handle(.enter, model: &model)
        XCTAssertTrue(keys.detailOpen)
        _ = keys.handle(.escape, model: &model)
        XCTAssertFalse(keys.detailOpen)
    }
}

final class TopScreenTests: XCTestCase {
    private let now = Date(timeIntervalSince1970: 2_000_000)

    private func model() -> TopModel {
        var model = TopModel()
        let peers = (1...3).map { n in
            PeerSnapshot(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!, peerId: "\(n)abc", name: ["nas", "laptop", "phone"][n - 1],
                         state: n == 1 ? .connected : .notConnected,
                         endpoints: [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.0.\(n)", port: 7717)],
                         info: ["v": "1"], lastSeen: now, lost: n == 3)
        }
        model.load(peers: peers, invitations: [], pairings: [], transfers: [], queues: [])
        return model
    }

    func testThreeSizes() {
        let wide = TopView.frame(model(), TopInteraction(), width: 120, height: 30, now: now)
        XCTAssertTrue(wide.text(row: 0).hasPrefix(" peerd top · 3 peers, 1 connected"))
        XCTAssertTrue(wide.text(row: 2).contains("nas"))
        XCTAssertTrue(wide.text(row: 1).contains("│"), "a rule between the panes")
        XCTAssertTrue(wide.text(row: 1).contains("nas"), "the detail beside the list names the selected peer")
        XCTAssertEqual(wide.rows[2][1].style, [.green, .reverse], "the selected, connected row")

        let stacked = TopView.frame(model(), TopInteraction(), width: 80, height: 24, now: now)
        let lines = stacked.plainLines
        XCTAssertTrue(lines.contains { $0.hasPrefix("────") }, "a rule between list and detail")
        XCTAssertTrue(lines.contains { $0.hasPrefix("nas") }, "the detail below starts with the name")

        let small = TopView.frame(model(), TopInteraction(), width: 30, height: 8, now: now)
        XCTAssertEqual(small.plainLines.filter { !$0.isEmpty }, ["too small: 30×8, need 40×10"])
    }

    func testNarrowAndShortOpensTheDetailWithEnter() {
        var m = model()
        var keys = TopInteraction()
        let list = TopView.frame(m, keys, width: 60, height: 12, now: now)
        XCTAssertTrue(list.text(row: 1).contains("NAME"))
        _ = keys.handle(.down, model: &m)
        _ = keys.handle(.enter, model: &m)
        let detail = TopView.frame(m, keys, width: 60, height: 12, now: now)
        XCTAssertTrue(detail.text(row: 1).hasPrefix("laptop"), detail.plainLines.joined(separator: "\n"))
    }

    func testTheDiffWritesOnlyChangedCells() {
        var a = ScreenFrame(width: 20, height: 3)
        a.put("hello world", row: 1, column: 0)
        var b = a
        b.put("W", row: 1, column: 6)
        XCTAssertEqual(ScreenDiff.render(from: a, to: b, color: true), "\u{1B}[2;7H\u{1B}[0mW")
        XCTAssertEqual(ScreenDiff.render(from: b, to: b, color: true), "", "nothing changed, nothing written")
        let whole = ScreenDiff.render(from: nil, to: b, color: true)
        XCTAssertTrue(whole.hasPrefix("\u{1B}[0m\u{1B}[H\u{1B}[2J"))
        var styled = b
        styled.put("!", row: 0, column: 0, style: .green)
        XCTAssertEqual(ScreenDiff.render(from: b, to: styled, color: true), "\u{1B}[1;1H\u{1B}[0;32m!\u{1B}[0m")
        XCTAssertEqual(ScreenDiff.render(from: b, to: styled, color: false), "\u{1B}[1;1H\u{1B}[0m!\u{1B}[0m", "NO_COLOR: no colour code")
    }

    func testWideNamesNeverPushPastTheEdge() {
        var frame = ScreenFrame(width: 10, height: 1)
        frame.put("名前名前名前", row: 0, column: 0)
        XCTAssertEqual(frame.plainLines[0], "名前名前…", "cut on a whole character, marked")
        XCTAssertEqual(DisplayWidth.of(frame.text(row: 0)), 10, "exactly the width, never more")
        frame.put("\u{1B}[2Jevil", row: 0, column: 0)
        XCTAssertFalse(frame.rows[0].contains { $0.text.unicodeScalars.contains { $0.value < 0x20 } }, "a name cannot send escapes")
    }
}
