import XCTest
@testable import PeerCore
import PeerProtocol

final class TransferPathTests: XCTestCase {
    func testNamesAreAcceptedAsTheyAreOrRefusedWithAReason() {
        let long = String(repeating: "x", count: 256)
        // (name as bytes, expected components or refusal)
        let rows: [(String, [UInt8], Result<[String], TransferPathRefusal>)] = [
            ("plain", Array("photo.jpg".utf8), .success(["photo.jpg"])),
            ("nested", Array("dir/sub/file.txt".utf8), .success(["dir", "sub", "file.txt"])),
            ("dots inside a name", Array("a..b/...".utf8), .success(["a..b", "..."])),
            ("NFC non-ASCII", Array("caf\u{e9}/\u{1F600}.png".utf8), .success(["caf\u{e9}", "\u{1F600}.png"])),
            ("a leading dot", Array(".profile".utf8), .success([".profile"])),
            ("backslash is a character", Array("a\\b".utf8), .success(["a\\b"])),
            ("empty", [], .failure(.empty)),
            ("absolute", Array("/etc/passwd".utf8), .failure(.absolute)),
            ("traversal", Array("../../.ssh/authorized_keys".utf8), .failure(.dotComponent)),
            ("traversal inside", Array("dir/../../x".utf8), .failure(.dotComponent)),
            ("a lone dot", Array("./x".utf8), .failure(.dotComponent)),
            ("doubled slash", Array("a//b".utf8), .failure(.emptyComponent)),
            ("trailing slash", Array("dir/".utf8), .failure(.emptyComponent)),
            ("NUL", Array("a\u{0}b".utf8), .failure(.controlCharacter)),
            ("newline", Array("a\nb".utf8), .failure(.controlCharacter)),
            ("escape", Array("\u{1B}[31mred".utf8), .failure(.controlCharacter)),
            ("DEL", Array("a\u{7F}".utf8), .failure(.controlCharacter)),
            ("C1 CSI", Array("a\u{9B}b".utf8), .failure(.controlCharacter)),
            // Issue 21, point 1.7: lookalikes that landed on disk before.
            ("right-to-left override", Array("invoice\u{202E}fdp.exe".utf8), .failure(.invisibleCharacter)),
            ("left-to-right mark", Array("a\u{200E}b".utf8), .failure(.invisibleCharacter)),
            ("isolate", Array("a\u{2067}b".utf8), .failure(.invisibleCharacter)),
            ("zero-width space", Array("pay\u{200B}pal.pdf".utf8), .failure(.invisibleCharacter)),
            ("zero-width joiner", Array("a\u{200D}b".utf8), .failure(.invisibleCharacter)),
            ("byte order mark", Array("\u{FEFF}notes.txt".utf8), .failure(.invisibleCharacter)),
            ("soft hyphen", Array("a\u{AD}b".utf8), .failure(.invisibleCharacter)),
            ("line separator", Array("a\u{2028}b".utf8), .failure(.invisibleCharacter)),
            ("paragraph separator", Array("a\u{2029}b".utf8), .failure(.invisibleCharacter)),
            ("fullwidth solidus", Array("etc\u{FF0F}passwd".utf8), .failure(.lookalikeSeparator)),
            ("division slash", Array("a\u{2215}b".utf8), .failure(.lookalikeSeparator)),
            ("fraction slash", Array("a\u{2044}b".utf8), .failure(.lookalikeSeparator)),
            ("Cyrillic letters stay", Array("\u{0444}\u{0430}\u{0439}\u{043B}.txt".utf8), .success(["\u{0444}\u{0430}\u{0439}\u{043B}.txt"])),
            ("CJK stays", Array("\u{6587}\u{4EF6}.txt".utf8), .success(["\u{6587}\u{4EF6}.txt"])),
            ("no-break space stays", Array("a\u{A0}b".utf8), .success(["a\u{A0}b"])),
            // Point 1.1: peerd's own names are not a peer's to write.
            ("an acceptance note's name", Array(".peerd-00112233445566778899aabbccddeeff.accepted".utf8), .failure(.reservedName)),
            ("a partial file's name", Array("dir/.peerd-0011-0.part".utf8), .failure(.reservedName)),
            ("a reserved folder", Array(".peerd-x/file".utf8), .failure(.reservedName)),
            ("a name that only contains it", Array("a.peerd-x".utf8), .success(["a.peerd-x"])),
            ("bad UTF-8", [0x61, 0xFF, 0x62], .failure(.notUTF8)),
            ("overlong slash", [0xC0, 0xAF], .failure(.notUTF8)),
            ("decomposed (NFD)", Array("cafe\u{301}".utf8), .failure(.notNFC)),
            ("component over 255 bytes", Array(long.utf8), .failure(.tooLong)),
            ("path over 4096 bytes", Array(String(repeating: "ab/", count: 1366).dropLast().utf8) + [0x63], .failure(.tooLong)),
        ]
        for (name, bytes, expected) in rows {
            XCTAssertEqual(TransferPath.check(bytes).map(\.components), expected, name)
        }
        XCTAssertEqual(try TransferPath.check("a/b").get().description, "a/b")
    }
}
