import XCTest
@testable import PeerCore

/// Issue 21, points 1.1 and 1.2: the acceptance record's format, and what
/// it binds to.
final class AcceptanceRecordTests: XCTestCase {
    func testRoundTripAndStrictReading() {
        let record = AcceptanceRecord(peerID: "0123456789abcdef0123456789abcdef", manifest: "ab12", files: [0, 2, 5])
        XCTAssertEqual(String(decoding: record.encoded, as: UTF8.self),
                       "peerd-accepted 1\npeer 0123456789abcdef0123456789abcdef\nmanifest ab12\nfiles 0,2,5\n")
        XCTAssertEqual(AcceptanceRecord.decode(record.encoded), record)
        XCTAssertEqual(AcceptanceRecord.decode(AcceptanceRecord(peerID: "p", manifest: "00", files: []).encoded)?.files, [])
        // What an old acceptance note held (numbers, one per line) is no record.
        let rows: [(String, String)] = [
            ("0\n1\n2", "a 0.1.0 note"),
            ("peerd-accepted 2\npeer p\nmanifest 00\nfiles 1\n", "another version"),
            ("peerd-accepted 1\npeer p\nmanifest zz\nfiles 1\n", "a manifest that is not hex"),
            ("peerd-accepted 1\npeer p\nmanifest 00\nfiles -1\n", "a negative file"),
            ("peerd-accepted 1\npeer p\nmanifest 00\nfiles 1,,2\n", "an empty number"),
            ("peerd-accepted 1\npeer p\nmanifest 00\nfiles 1\nmore\n", "a line too many"),
            ("peerd-accepted 1\npeer p\nmanifest 00\nfiles 1", "no last newline"),
            ("", "empty"),
        ]
        for (text, why) in rows { XCTAssertNil(AcceptanceRecord.decode(Array(text.utf8)), why) }
    }

    func testTheManifestBindsNamesSizesModesAndCount() {
        let notes = OfferedFile(name: Array("notes.txt".utf8), size: 1 << 20, mode: 0o644, mtime: 1)
        let base = OfferManifest.canonicalBytes([notes])
        var renamed = notes; renamed.name = Array("autorun.sh".utf8)
        var bigger = notes; bigger.size = 1 << 40
        var executable = notes; executable.mode = 0o755
        var touched = notes; touched.mtime = 2
        XCTAssertNotEqual(OfferManifest.canonicalBytes([renamed]), base)
        XCTAssertNotEqual(OfferManifest.canonicalBytes([bigger]), base)
        XCTAssertNotEqual(OfferManifest.canonicalBytes([executable]), base)
        XCTAssertNotEqual(OfferManifest.canonicalBytes([notes, notes]), base)
        XCTAssertEqual(OfferManifest.canonicalBytes([touched]), base, "a new modification time is the same offer")
        // Names are length-prefixed: "ab"+"c" and "a"+"bc" differ.
        let ab = OfferedFile(name: Array("ab".utf8), size: 0, mode: 0, mtime: 0), c = OfferedFile(name: Array("c".utf8), size: 0, mode: 0, mtime: 0)
        let a = OfferedFile(name: Array("a".utf8), size: 0, mode: 0, mtime: 0), bc = OfferedFile(name: Array("bc".utf8), size: 0, mode: 0, mtime: 0)
        XCTAssertNotEqual(OfferManifest.canonicalBytes([ab, c]), OfferManifest.canonicalBytes([a, bc]))
        XCTAssertEqual(base, [0, 0, 0, 1, 0, 0, 0, 9] + Array("notes.txt".utf8) + [0, 0, 0, 0, 0, 0x10, 0, 0, 0, 0, 0x01, 0xA4], "pinned")
        let record = AcceptanceRecord(peerID: "p1", manifest: "aa", files: [0])
        XCTAssertTrue(record.binds(peerID: "p1", manifest: "aa"))
        XCTAssertFalse(record.binds(peerID: "p2", manifest: "aa"), "another peer's offer under the same id")
        XCTAssertFalse(record.binds(peerID: "p1", manifest: "bb"), "other files under the same id")
    }
}
