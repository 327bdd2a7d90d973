import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// The declared apps on disk: what is written comes back, a file of
/// another version is reported (for start-up to refuse) and never
/// rewritten, and an entry that breaks the rules costs only itself.
final class AppStoreTests: XCTestCase {
    private var directory = ""
    private let logger = Logger(level: .error)

    override func setUp() {
        directory = NSTemporaryDirectory() + "peerd-apps-\(UUID().uuidString.prefix(8))"
        mkdir(directory, 0o700)
    }

    override func tearDown() { _ = try? FileManager.default.removeItem(atPath: directory) }

    func testDeclaredAppsComeBackAsWritten() throws {
        let store = AppStore(stateDirectory: directory, logger: logger)
        XCTAssertEqual(store.load(), [], "no file: no apps")
        XCTAssertNil(store.unreadable())
        let chat = try AppName("chat")
        let info = try AppInfo([TXTEntry(key: "room", value: "lobby")], for: chat)
        try store.save([AppRegistration(name: chat, uid: 1001, info: info, clients: [3], declared: true)])
        XCTAssertEqual(store.load(), [AppRegistration(name: chat, uid: 1001, info: info, declared: true)], "clients are not kept")
        var status = stat()
        XCTAssertEqual(stat(store.path, &status), 0)
        XCTAssertEqual(status.st_mode & 0o777, 0o600)
    }

    func testAnotherVersionIsReportedAndABadEntrySkipped() throws {
        let store = AppStore(stateDirectory: directory, logger: logger)
        try AtomicFile.write(store.path, contents: Array(#"{"v":2,"apps":[]}"#.utf8))
        XCTAssertEqual(store.unreadable(), "a declared-apps file of version 2")
        XCTAssertEqual(store.load(), [])
        try AtomicFile.write(store.path, contents: Array("not json".utf8))
        XCTAssertEqual(store.unreadable(), "not a declared-apps file")
        try AtomicFile.write(store.path, contents: Array(#"{"v":1,"apps":[{"name":"Bad","uid":1,"info":[]},{"name":"ok","uid":2,"info":["a=1"]}]}"#.utf8))
        XCTAssertNil(store.unreadable())
        XCTAssertEqual(store.load().map(\.name.text), ["ok"], "the entry that breaks the name rule is skipped, the rest kept")
        // Info written before the control-character rule (issue 42): the
        // declaration stays, without its info.
        try AtomicFile.write(store.path, contents: Array(#"{"v":1,"apps":[{"name":"game","uid":3,"info":["room=a\u001bb"]}]}"#.utf8))
        let loaded = store.load()
        XCTAssertEqual(loaded.map(\.name.text), ["game"])
        XCTAssertEqual(loaded.first?.info, .empty)
        XCTAssertEqual(loaded.first?.uid, 3)
    }
}
