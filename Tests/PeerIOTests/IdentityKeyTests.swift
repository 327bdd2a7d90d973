import Foundation
import Glibc
import XCTest
@testable import PeerIO

final class IdentityKeyTests: XCTestCase {
    private var directory = ""

    override func setUp() {
        directory = NSTemporaryDirectory() + "peerd-key-\(UUID().uuidString)"
        try? Sodium.initialize()
    }

    override func tearDown() {
        try? FileManager.default.removeItem(atPath: directory)
    }

    func testCreatedOnceWithMode0600AndReused() throws {
        let first = try IdentityKey.loadOrCreate(in: directory + "/state")
        XCTAssertTrue(first.created)
        var info = stat()
        XCTAssertEqual(stat(directory + "/state/identity.key", &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o600)
        let second = try IdentityKey.loadOrCreate(in: directory + "/state")
        XCTAssertFalse(second.created)
        XCTAssertEqual(second.key.peerID, first.key.peerID)
        XCTAssertEqual(first.key.peerID.count, 32)
        XCTAssertTrue(first.key.peerID.allSatisfy { "0123456789abcdef".contains($0) })
    }

    func testPeerIDIsFingerprintOfThePublicKey() {
        // RFC 7748 §6.1: Alice's private key and public key.
        let secret = Hex.decode("77076d0a7318a57d3c16c17251b26645df4c2f87ebc0992ab177fba51db92c2a")!
        let key = IdentityKey(secretKey: secret)
        XCTAssertEqual(Hex.encode(key.publicKey), "8520f0098930a754748b7ddcb43ef75a0dbf3a0d26381af4eba4a98eaa9b4e6a")
        XCTAssertEqual(key.peerID, Hex.encode(Sodium.sha256(key.publicKey).prefix(16)))
        XCTAssertEqual(key.peerID, "300c9c9603b92a4b39ed3958bf924011", "the example in docs/identity.md")
    }

    func testCorruptFileIsReportedAndNeverReplaced() throws {
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        let path = directory + "/identity.key"
        try "garbage\n".write(toFile: path, atomically: false, encoding: .utf8)
        XCTAssertThrowsError(try IdentityKey.loadOrCreate(in: directory)) { error in
            guard case .corrupt(let where_, _) = error as? IdentityKeyError else { return XCTFail("\(error)") }
            XCTAssertEqual(where_, path)
            XCTAssertTrue("\(error)".contains("will not overwrite"))
        }
        XCTAssertEqual(try String(contentsOfFile: path, encoding: .utf8), "garbage\n")
        XCTAssertThrowsError(try IdentityKey.parse("peerd-identity v1\nx25519 abcd\n", path: path))
    }
}
