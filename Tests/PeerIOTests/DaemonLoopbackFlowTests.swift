import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerSystem
import XCTest
@testable import PeerIO

/// More of the daemon hub through two whole daemons on loopback
/// (``LoopbackLab``): a file (`TransferDesk` both ways, the download
/// folder), an app's message (`AppDesk`, `AppSessions`, the app's own
/// invitation policy), and an invitation a client declines
/// (`InvitationDesk`, `SessionAftermath`).
@MainActor
final class DaemonLoopbackFlowTests: LoopbackLabTestCase {
    func testAFileArrivesWholeInTheOthersDownloads() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let path = alpha.root + "/notes.bin"
        let bytes = (0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) }
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        let transfer = try await lab.client(alpha).sendFile(path, to: bravoRow.id)
        var last = transfer.started
        for try await info in transfer.progress { last = info }
        XCTAssertEqual(last.state, .completed, "\(last)")
        XCTAssertEqual(last.bytes, 300_000)
        // bravo accepts by its policy (all), into a folder of its downloads.
        let downloads = bravo.state + "/downloads"
        var arrived: String?
        let landed = try await lab.eventually {
            arrived = FileManager.default.subpaths(atPath: downloads)?.first { $0.hasSuffix("notes.bin") }.map { downloads + "/" + $0 }
            return arrived != nil
        }
        XCTAssertTrue(landed, "nothing in \(downloads): \(FileManager.default.subpaths(atPath: downloads) ?? [])")
        let whole = arrived.flatMap { FileManager.default.contents(atPath: $0) }.map { Array($0) == bytes }
        XCTAssertEqual(whole, true, "the file arrived byte for byte")
    }

    func testAnAppsMessageGoesToThatAppsClientAlone() async throws {
        let alpha = try lab.start("alpha")
        let bravo = try lab.start("bravo") { $0.appAutoAccept[try! AppName("chat")] = .all }
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let (alphaChat, bravoChat) = try await lab.registered("chat", on: alpha, bravo)
        // The app's own invitation, accepted by bravo's rule for chat.
        _ = try await alphaChat.invite(bravoRow.id, app: "chat")
        let connected = try await lab.eventually { try await alphaChat.peers(app: "chat").first?.state == .connected }
        XCTAssertTrue(connected, "chat never connected")
        let first = Task { () throws -> PeerMessage? in
            var iterator = bravoChat.messages(app: "chat").makeAsyncIterator()
            return try await iterator.next()
        }
        let subscribed = try await lab.eventually { try await bravoChat.status().subscribers >= 1 }
        XCTAssertTrue(subscribed)
        _ = try await alphaChat.send(Array("for chat".utf8), to: bravoRow.id, app: "chat")
        let message = try await first.value
        XCTAssertEqual(message?.bytes, Array("for chat".utf8))
        XCTAssertEqual(message?.app, "chat")
        // The default app's inbox did not get it.
        let inbox = try await lab.call(bravo, .inbox, ControlParams())
        XCTAssertEqual(inbox.count, 0, "the default app's inbox holds \(inbox.count)")
    }

    func testAnInvitationAClientDeclinesEndsTheDial() async throws {
        let alpha = try lab.start("alpha")
        let bravo = try lab.start("bravo") { $0.autoAccept = .none }
        let bravoClient = try await lab.client(bravo)
        // bravo's client is there to decide (a subscriber), and declines.
        let events = Task { () throws -> Void in
            var iterator = bravoClient.events().makeAsyncIterator()
            _ = try await iterator.next()
        }
        defer { events.cancel() }
        let subscribed = try await lab.eventually { try await bravoClient.status().subscribers >= 1 }
        XCTAssertTrue(subscribed)
        let bravoRow = try await lab.add(alpha, bravo)
        var waiting: [InvitationInfo] = []
        let asked = try await lab.eventually { waiting = try await bravoClient.invitations(); return waiting.count == 1 }
        XCTAssertTrue(asked, "bravo was never asked")
        XCTAssertEqual(waiting.first?.name, "alpha")
        _ = try await bravoClient.decline(try XCTUnwrap(waiting.first?.id))
        let alphaClient = try await lab.client(alpha)
        var row = bravoRow
        let ended = try await lab.eventually { row = try await alphaClient.peer(bravoRow.id); return row.state == .notConnected }
        XCTAssertTrue(ended, "still \(row.state)")
        let left = try await bravoClient.invitations()
        XCTAssertEqual(left.count, 0, "nothing left to decide")
    }
}
