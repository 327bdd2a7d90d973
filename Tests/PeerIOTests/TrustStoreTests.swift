import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO

final class TrustStoreTests: XCTestCase {
    private var directory = ""

    override func setUp() { directory = NSTemporaryDirectory() + "peerd-trust-\(UUID().uuidString.prefix(8))" }
    override func tearDown() { try? FileManager.default.removeItem(atPath: directory) }

    private func record(_ id: String, _ name: String) -> TrustRecord {
        TrustRecord(publicKey: String(repeating: "ab", count: 32), peerId: id, name: name, uuid: UUID(), pairedAt: Date(timeIntervalSince1970: 1))
    }

    func testRecordsPersistWithMode0600() throws {
        var store = try TrustStore.open(in: directory, reset: false).store
        XCTAssertTrue(store.document.peers.isEmpty)
        let alpha = record("aa", "alpha")
        try store.upsert(alpha)
        try store.upsert(record("bb", "beta"))
        try store.upsert(TrustRecord(publicKey: alpha.publicKey, peerId: "aa", name: "alpha2", uuid: alpha.uuid, pairedAt: alpha.pairedAt))
        var info = stat()
        XCTAssertEqual(stat(store.path, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let reopened = try TrustStore.open(in: directory, reset: false).store
        XCTAssertEqual(reopened.document.peers.count, 2)
        XCTAssertEqual(reopened.record(peerID: "aa")?.name, "alpha2")
        XCTAssertEqual(reopened.record(peerID: "aa")?.uuid, alpha.uuid)
        XCTAssertEqual(reopened.record(named: "beta")?.peerId, "bb")
        var removing = reopened
        XCTAssertTrue(try removing.remove(peerID: "bb"))
        XCTAssertFalse(try removing.remove(peerID: "bb"))
        XCTAssertNil(try TrustStore.open(in: directory, reset: false).store.record(peerID: "bb"))
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory).filter { $0.contains(".tmp") }
        XCTAssertEqual(leftovers, [], "no temporary files remain")
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
}
