import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// The one path of events (issue 43, point 3): what is numbered, what is
/// kept for replay, and what is neither.
@MainActor
final class EventOutletTests: XCTestCase {
    private var socket = ""

    override func setUp() async throws { socket = NSTemporaryDirectory() + "peerd-outlet-\(UUID().uuidString.prefix(8)).sock" }
    override func tearDown() async throws { unlink(socket) }

    private func event(_ type: EventKind) -> ControlEvent { ControlEvent(seq: 0, type: type, time: Date(timeIntervalSince1970: 1)) }

    func testWhatIsNumberedAndWhatIsKept() async throws {
        let control = try ControlServer(path: socket, queueLimit: 1 << 20, logger: Logger(level: .error))
        defer { control.stop(time: Date()) }
        let outlet = EventOutlet(history: 16, control: control)
        outlet.emit(event(.peerFound))
        XCTAssertEqual(outlet.lastSeq, 1)
        XCTAssertEqual(outlet.events(after: 0).events.map(\.type), [.peerFound], "kept for replay")
        outlet.emit(event(.transferProgress))
        XCTAssertEqual(outlet.lastSeq, 2, "a live-only event is numbered")
        outlet.emit(event(.invitation)) { _ in true }
        XCTAssertEqual(outlet.lastSeq, 3, "an app's event is numbered")
        // A message for two takers (none connected here) is numbered once.
        XCTAssertEqual(outlet.deliver(event(.message), to: []), [])
        XCTAssertEqual(outlet.lastSeq, 4)
        XCTAssertEqual(outlet.events(after: 0).events.map(\.seq), [1], "live-only, app and message events are not kept")
    }
}
