import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO

/// The inbox shell without a session or a lab (issue 21, point 8's middle
/// tier): messages no client takes are stored on disk and listed; a
/// `take` whose answer never went out leaves them waiting; they outlast a
/// restart; a full inbox refuses with words, never silently.
@MainActor
final class InboxDeliveryTests: XCTestCase {
    private var directory = ""
    private var socket = ""
    private let peer = String(repeating: "ab", count: 16)

    override func setUp() async throws {
        directory = NSTemporaryDirectory() + "peerd-inbox-\(UUID().uuidString.prefix(8))"
        socket = directory + ".sock"
        mkdir(directory, 0o700)
    }

    override func tearDown() async throws {
        try? FileManager.default.removeItem(atPath: directory)
        unlink(socket)
    }

    private func delivery(limit: Int = 1 << 20, control: ControlServer) -> InboxDelivery {
        InboxDelivery(stateDirectory: directory, limit: limit, budget: 1 << 20, events: EventOutlet(history: 16, control: control),
                      logger: Logger(level: .error), lookUp: { _ in InboxSender(uuid: nil, name: "peer", paired: true) }, onRoom: {})
    }

    /// Waits for `arrived` to end in the disk's word: nil when stored.
    private func store(_ text: String, in inbox: InboxDelivery, tag: QueueTag? = nil) async -> String?? {
        await withCheckedContinuation { (done: CheckedContinuation<String??, Never>) in
            switch inbox.arrived(Array(text.utf8), from: peer, now: Date(timeIntervalSince1970: 1), tag: tag,
                                 stored: { done.resume(returning: .some($0)) }) {
            case .storing: break
            case .accepted: done.resume(returning: .some("accepted by a client"))
            case .repeated: done.resume(returning: .some("a repeat"))
            case .refused(let words): done.resume(returning: .some(words))
            }
        }
    }

    private func take(_ max: Int, from inbox: InboxDelivery) async -> (texts: [String], ids: [UInt64]) {
        await withCheckedContinuation { done in
            inbox.take(from: nil, max: max) { outcome in
                let taken = try? outcome.get()
                let texts = (taken?.result.messages ?? []).compactMap { Data(base64Encoded: $0.data).map { String(decoding: $0, as: UTF8.self) } }
                done.resume(returning: (texts, taken?.ids ?? []))
            }
        }
    }

    func testStoredMessagesAreListedTakenAndOutlastARestart() async throws {
        let control = try ControlServer(path: socket, queueLimit: 1 << 20, logger: Logger(level: .error))
        defer { control.stop(time: Date()) }
        var inbox: InboxDelivery? = delivery(control: control)
        for text in ["one", "two", "three"] {
            let outcome = await store(text, in: inbox!)
            XCTAssertEqual(outcome, .some(nil), "\(text) was stored")
        }
        XCTAssertEqual(inbox!.list(from: nil, max: 10).count, 3)
        XCTAssertEqual(inbox!.list(from: "someone-else", max: 10).count, 0)
        let taken = await take(2, from: inbox!)
        XCTAssertEqual(taken.texts, ["one", "two"])
        // The answer never went out (the client left): nothing is lost.
        inbox!.unclaimed(taken.ids)
        XCTAssertEqual(inbox!.list(from: nil, max: 10).count, 3)
        let again = await take(10, from: inbox!)
        XCTAssertEqual(again.texts, ["one", "two", "three"], "unclaimed messages are taken again, in order")
        inbox!.unclaimed(again.ids)
        inbox!.finishWriting()
        inbox = nil
        let reopened = delivery(control: control)
        XCTAssertEqual(reopened.list(from: nil, max: 10).count, 3, "what waits outlasts a restart")
        XCTAssertEqual(reopened.list(from: nil, max: 10).messages.map(\.size), [3, 3, 5])
    }

    func testAFullInboxRefusesWithWords() async throws {
        let control = try ControlServer(path: socket, queueLimit: 1 << 20, logger: Logger(level: .error))
        defer { control.stop(time: Date()) }
        let inbox = delivery(limit: InboxFileCodec.recordSize(dataCount: 100), control: control)
        let first = await store(String(repeating: "x", count: 100), in: inbox)
        XCTAssertEqual(first, .some(nil))
        let second = await store("y", in: inbox)
        XCTAssertNotNil(second ?? nil, "a full inbox refuses")
        XCTAssertEqual(inbox.list(from: nil, max: 10).count, 1, "the refused message is not stored")
    }

    /// A queued message sent again (its acknowledgement was lost) is kept
    /// once: the repeat is dropped, also after a restart, and a tagged
    /// message is stored even while a client takes live (issue 42, point 6).
    func testAQueuedMessageSentAgainIsKeptOnce() async throws {
        let control = try ControlServer(path: socket, queueLimit: 1 << 20, logger: Logger(level: .error))
        defer { control.stop(time: Date()) }
        var inbox: InboxDelivery? = delivery(control: control)
        let one = QueueTag(epoch: 77, seq: 1), two = QueueTag(epoch: 77, seq: 2)
        let first = await store("one", in: inbox!, tag: one)
        XCTAssertEqual(first, .some(nil), "stored")
        let repeated = await store("one", in: inbox!, tag: one)
        XCTAssertEqual(repeated, .some("a repeat"))
        let second = await store("two", in: inbox!, tag: two)
        XCTAssertEqual(second, .some(nil))
        let plain = await store("plain", in: inbox!)
        XCTAssertEqual(plain, .some(nil), "an untagged message is never taken for a repeat")
        XCTAssertEqual(inbox!.list(from: nil, max: 10).count, 3)
        let taken = await take(10, from: inbox!)
        XCTAssertEqual(taken.texts, ["one", "two", "plain"])
        inbox!.finishWriting()
        inbox = nil
        let reopened = delivery(control: control)
        let afterRestart = await store("two", in: reopened, tag: two)
        XCTAssertEqual(afterRestart, .some("a repeat"), "the mark outlasts a restart")
        let third = await store("three", in: reopened, tag: QueueTag(epoch: 77, seq: 3))
        XCTAssertEqual(third, .some(nil))
    }
}
