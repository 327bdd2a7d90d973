import XCTest
@testable import PeerCore
import PeerProtocol

/// Which app flows a peer may open here (``AppFlowAdmission``), as a table.
final class AppFlowAdmissionTests: XCTestCase {
    func testTheTable() throws {
        let flow = FlowID(bytes: Array(1...16))!
        let chat = try AppName("chat")
        let offer = BulkMessage.offer(flow, more: false, totalFiles: 0, totalBytes: 0, files: [])
        let open = BulkMessage.streamOpen(flow, name: "s")
        let rows: [(BulkMessage, AppName, Bool, Bool, BulkMessage?)] = [
            (offer, .none, false, false, nil),
            (open, .none, false, false, nil),
            (offer, chat, true, true, nil),
            (open, chat, true, true, nil),
            (offer, chat, false, false, .cancel(flow, reason: .declined, text: "no client of app 'chat' is here, and it is not declared")),
            (offer, chat, true, false, .cancel(flow, reason: .declined, text: "app 'chat' is not connected with you here: invite it first")),
            (open, chat, true, false, .streamReset(flow, reason: .unknownName, text: "app 'chat' is not connected with you here: invite it first")),
        ]
        for (index, row) in rows.enumerated() {
            XCTAssertEqual(AppFlowAdmission.refusal(of: row.0, app: row.1, kept: row.2, connected: row.3), row.4, "row \(index)")
        }
    }
}
