import FoundationEssentials
import XCTest
import PeerProtocol
@testable import PeerTools

/// The desktop app's detail pane, widget by widget (issue 45): what it
/// shows, and which changes keep its widgets (a progress step, a new
/// round trip, a fact more) and which build it anew. A rebuild while a button is
/// pressed loses the press, so a transfer's progress must never cause one.
final class PeerDetailLayoutTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)
    private let id = UUID(uuidString: "00000000-0000-0000-0000-000000000002")!

    private func row(_ state: ConnectionState = .connected) -> PeerSnapshot {
        PeerSnapshot(id: id, peerId: String(repeating: "2", count: 32), name: "host2", state: state,
                     endpoints: [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.0.2", port: 7717)], info: [:], lastSeen: t0, lost: false)
    }

    private func transfer(_ type: EventKind, _ transfer: String, state: TransferState, bytes: Int64 = 0) -> ControlEvent {
        var info = TransferInfo(id: transfer, direction: .receive, peer: id, name: "host2", state: state, totalFiles: 1, totalBytes: 4 << 20,
                                acceptedFiles: 1, acceptedBytes: 4 << 20, bytes: bytes)
        if type == .transferOffered { info.files = [TransferFileInfo(index: 0, name: "a.bin", size: 4 << 20, verdict: "pending")] }
        return ControlEvent(seq: 2, type: type, time: t0, transfer: info)
    }

    private func layout(_ inbox: DesktopInbox, roundTrip: Double? = nil, files: [String] = [], peer: UUID? = nil) -> PeerDetailLayout {
        var details = PeerResult(peer: row())
        details.datagrams = roundTrip.map { DatagramInfo(path: "up", port: 7718, roundTripMs: $0, sent: 1, received: 1) }
        return PeerDetailLayout(PeerDetailPresentation(row(), state: .connected, details: details), peer: peer ?? id, inbox: inbox, files: files)
    }

    private func buttons(_ layout: PeerDetailLayout) -> [String] {
        layout.items.flatMap { item -> [String] in
            if case .buttons(let row) = item { return row.map(\.label) }
            return []
        }
    }

    func testAnOfferShowsItsButtonsThenItsProgressThenItsFolder() {
        var inbox = DesktopInbox()
        inbox.apply(transfer(.transferOffered, "T1", state: .offered))
        let offered = layout(inbox, files: ["/home/ann/notes.txt"])
        XCTAssertEqual(offered.items.first, .title("host2"))
        XCTAssertEqual(buttons(offered), ["Disconnect", "Pair", "Send 1 file", "Send files…", "Send message", "Accept files", "Decline files"])
        XCTAssertTrue(offered.items.contains(.line("To send: notes.txt")))
        XCTAssertTrue(offered.items.contains(.messageEntry(placeholder: "A message to host2")))
        XCTAssertTrue(offered.items.contains(.buttons([.init(label: "Accept files", command: .accept(transfer: "T1")),
                                                      .init(label: "Decline files", command: .decline(transfer: "T1"))])))
        inbox.apply(transfer(.transferProgress, "T1", state: .active, bytes: 1 << 20))
        let receiving = layout(inbox)
        XCTAssertTrue(receiving.items.contains(.progress(label: "Receiving a.bin (4.0 MiB)", percent: 25)))
        XCTAssertFalse(buttons(receiving).contains("Accept files"))
        var completed = transfer(.transferCompleted, "T1", state: .completed, bytes: 4 << 20)
        completed.transfer?.folder = "host2"
        inbox.apply(completed)
        XCTAssertTrue(layout(inbox).items.contains(.buttons([.init(label: "Save to Downloads", command: .saveFiles(transfer: "T1", folder: "host2"))])))
        inbox.saved("T1", of: id, into: "/home/ann/Downloads/host2")
        XCTAssertEqual(buttons(layout(inbox)).last, "Open folder")
    }

    /// The rows: which two panes in a row keep the widgets.
    func testOnlyAFactsWordsOrAProgressStepKeepTheWidgets() {
        var offered = DesktopInbox()
        offered.apply(transfer(.transferOffered, "T1", state: .offered))
        var quarter = offered
        quarter.apply(transfer(.transferProgress, "T1", state: .active, bytes: 1 << 20))
        var half = quarter
        half.apply(transfer(.transferProgress, "T1", state: .active, bytes: 2 << 20))
        var done = half
        var completed = transfer(.transferCompleted, "T1", state: .completed, bytes: 4 << 20)
        completed.transfer?.folder = "host2"
        done.apply(completed)
        let other = UUID(uuidString: "00000000-0000-0000-0000-000000000003")!
        let rows: [(String, PeerDetailLayout, PeerDetailLayout, Bool)] = [
            ("the same pane", layout(offered), layout(offered), true),
            ("a progress step", layout(quarter), layout(half), true),
            ("a new round trip", layout(half, roundTrip: 0.41), layout(half, roundTrip: 0.52), true),
            ("the offer accepted: its buttons go", layout(offered), layout(quarter), false),
            ("the transfer done: a button comes", layout(half), layout(done), false),
            ("the first round trip: a fact comes, in the facts' box", layout(half), layout(half, roundTrip: 0.41), true),
            ("another peer", layout(half), layout(half, peer: other), false),
            ("no peer selected", layout(half), .none, false),
        ]
        for (name, before, after, same) in rows {
            XCTAssertEqual(after.sameShape(as: before), same, name)
        }
        XCTAssertNotEqual(layout(quarter), layout(half), "a progress step is still a change, made in place")
    }
}
