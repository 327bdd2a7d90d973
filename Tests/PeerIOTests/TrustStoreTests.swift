import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

final class TrustStoreTests: XCTestCase {
    private var directory = ""

    override func setUp() { directory = NSTemporaryDirectory() + "peerd-trust-\(UUID().uuidString.prefix(8))" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func record(_ id: String, _ name: String) -> TrustFileRecord {
        TrustFileRecord(publicKey: String(repeating: "ab", count: 32), peerId: id, name: name, uuid: UUID(), pairedAt: Date(timeIntervalSince1970: 1))
    }

    func testDocumentChangesArePure() {
        let alpha = record("aa", "alpha")
        let document = TrustDocument(peers: []).upserting(alpha).upserting(record("bb", "beta"))
        XCTAssertEqual(document.peers.map(\.peerId), ["aa", "bb"])
        let renamed = document.upserting(TrustFileRecord(publicKey: alpha.publicKey, peerId: "aa", name: "alpha2", uuid: alpha.uuid, pairedAt: alpha.pairedAt))
        XCTAssertEqual(renamed.peers.count, 2, "replaced, not added")
        XCTAssertEqual(renamed.record(peerID: "aa")?.name, "alpha2")
        XCTAssertEqual(renamed.record(named: "beta")?.peerId, "bb")
        XCTAssertEqual(renamed.removing(peerID: "bb")?.peers.map(\.peerId), ["aa"])
        XCTAssertNil(renamed.removing(peerID: "zz"), "nothing to remove")
    }

    func testRecordsPersistWithMode0600() throws {
        let store = try TrustStore.open(in: directory, reset: false).store
        XCTAssertTrue(store.document.peers.isEmpty)
        try store.write(TrustDocument(peers: [record("aa", "alpha"), record("bb", "beta")]))
        var info = stat()
        XCTAssertEqual(stat(store.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let reopened = try TrustStore.open(in: directory, reset: false).store
        XCTAssertEqual(reopened.document.peers.map(\.name), ["alpha", "beta"])
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp") }
        XCTAssertEqual(leftovers, [], "no temporary files remain")
    }

    /// The keeper writes off the main actor, in order, and believes a
    /// change only once it is on disk; a failed write changes nothing.
    @MainActor
    func testTheKeeperBelievesOnlyDurableChangesInOrder() throws {
        let keeper = TrustKeeper(store: try TrustStore.open(in: directory, reset: false).store)
        let written = expectation(description: "three changes")
        written.expectedFulfillmentCount = 3
        var outcomes: [Bool] = []
        keeper.change({ $0.upserting(self.record("aa", "alpha")) }, then: { outcomes.append((try? $0.get()) ?? false); written.fulfill() })
        // Made from the document the first change left, not the one before it.
        keeper.change({ $0.upserting(self.record("bb", "beta")) }, then: { outcomes.append((try? $0.get()) ?? false); written.fulfill() })
        keeper.change({ $0.removing(peerID: "zz") }, then: { outcomes.append((try? $0.get()) ?? true); written.fulfill() })
        XCTAssertTrue(keeper.document.peers.isEmpty, "nothing is believed before it is written")
        XCTAssertTrue(keeper.isBusy)
        wait(for: [written], timeout: 5)
        XCTAssertEqual(outcomes, [true, true, false])
        XCTAssertEqual(keeper.document.peers.map(\.peerId), ["aa", "bb"])
        XCTAssertEqual(try TrustStore.open(in: directory, reset: false).store.document.peers.map(\.peerId), ["aa", "bb"])
        // The directory goes away: the write fails, and the belief stays.
        try FileManager.default.removeItem(atPath: directory)
        let failed = expectation(description: "failed write")
        keeper.change({ $0.removing(peerID: "aa") }, then: { result in
            if case .success = result { XCTFail("a write into a missing directory succeeded") }
            failed.fulfill()
        })
        wait(for: [failed], timeout: 5)
        XCTAssertEqual(keeper.document.peers.map(\.peerId), ["aa", "bb"], "a failed write changes nothing")
    }

    func testCorruptFileIsRefusedThenMovedAsideOnlyWithReset() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/trust.json"
        try "{ not json".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try TrustStore.open(in: directory, reset: false)) { error in
            XCTAssertTrue("\(error)".contains("--reset-trust"), "\(error)")
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "{ not json", "never replaced silently")
        let (store, aside) = try TrustStore.open(in: directory, reset: true, now: Date(timeIntervalSince1970: 42))
        XCTAssertTrue(store.document.peers.isEmpty)
        XCTAssertEqual(aside, path + ".corrupt-42")
        XCTAssertEqual(try String(contentsOfFile: aside!, encoding: .utf8), "{ not json")
    }

    func testUnknownVersionIsRefused() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try #"{"version":9,"peers":[]}"#.write(toFile: directory + "/trust.json", atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try TrustStore.open(in: directory, reset: false)) { error in
            XCTAssertTrue("\(error)".contains("format version 9"), "\(error)")
        }
    }

    /// The file's layout is 0.3.0's (issue 43: the daemon's record apart
    /// from the control type, never a changed layout): a record encodes to
    /// the bytes the control type, which 0.3.0 wrote to the file, encodes
    /// to, and a file 0.3.0 wrote reads back whole.
    func testTheFilesRecordKeepsTheLayout030Wrote() throws {
        let when = Date(timeIntervalSince1970: 1_780_000_000)
        let peer = UUID(uuidString: "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F")!
        var mine = TrustFileRecord(publicKey: String(repeating: "ab", count: 32), peerId: "aa", name: "alpha", uuid: peer, pairedAt: when)
        var theirs = TrustRecord(publicKey: String(repeating: "ab", count: 32), peerId: "aa", name: "alpha", uuid: peer, pairedAt: when)
        XCTAssertEqual(try JSONLines.encode(mine), try JSONLines.encode(theirs))
        let endpoint = Endpoint(interface: "eth0", family: .ipv4, address: "169.254.1.2", port: 7717)
        mine.addresses = [endpoint]
        theirs.addresses = [endpoint]
        XCTAssertEqual(try JSONLines.encode(mine), try JSONLines.encode(theirs))
        XCTAssertEqual(mine.shown, theirs, "what `paired` shows is the file's record")
        // A document as 0.3.0 wrote it.
        let written = #"{"version":1,"peers":["# + String(decoding: try JSONLines.encode(theirs).dropLast(), as: UTF8.self) + "]}"
        let read = try JSONLines.decode(TrustDocument.self, from: Array(written.utf8))
        XCTAssertEqual(read.peers, [mine])
    }

    /// Issue 45: a Quick Save rule is one optional key of the record,
    /// `quickSave` with `uid` and `folder`; a record without one encodes as
    /// 0.3.0's did, and a 0.3.0 reader (which ignores keys it does not
    /// know) still reads the pairing.
    func testTheQuickSaveRuleIsOneOptionalKey() throws {
        let when = Date(timeIntervalSince1970: 1_780_000_000)
        let peer = UUID(uuidString: "6F1C2D3E-4A5B-4C6D-8E9F-0A1B2C3D4E5F")!
        var mine = TrustFileRecord(publicKey: String(repeating: "ab", count: 32), peerId: "aa", name: "alpha", uuid: peer, pairedAt: when)
        let without = String(decoding: try JSONLines.encode(mine), as: UTF8.self)
        XCTAssertFalse(without.contains("quickSave"))
        mine.quickSave = QuickSaveRule(uid: 1000, folder: "/home/ann/Downloads/alpha")
        let with = String(decoding: try JSONLines.encode(mine), as: UTF8.self)
        XCTAssertTrue(with.contains(#""quickSave":{"#), with)
        XCTAssertTrue(with.contains(#""uid":1000"#) && with.contains(#""folder":"\/home\/ann\/Downloads\/alpha""#) || with.contains(#""folder":"/home/ann/Downloads/alpha""#), with)
        XCTAssertEqual(mine.shown.quickSave, mine.quickSave, "`paired` shows the rule")
        let back = try JSONLines.decode(TrustFileRecord.self, from: Array(with.utf8))
        XCTAssertEqual(back, mine)
        // What a 0.3.0 reader makes of it: the control record of 0.3.0 had no
        // rule; the same keys less one decode to the same pairing.
        var old = try JSONLines.decode(TrustRecord.self, from: Array(with.utf8))
        old.quickSave = nil
        XCTAssertEqual(old.peerId, "aa")
    }
}
