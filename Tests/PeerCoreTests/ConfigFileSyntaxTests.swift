import Foundation
import XCTest
@testable import PeerCore

/// The file's syntax at its edges: line endings, byte-order marks, inline
/// comments, encodings and what errors show.
final class ConfigFileSyntaxTests: XCTestCase {
    private func values(_ text: String) throws -> [String: String] {
        Dictionary(try ConfigFile.entries(text).map { ($0.key, $0.value) }, uniquingKeysWith: { $1 })
    }

    func testCRLFAndAByteOrderMarkAreAccepted() throws {
        XCTAssertEqual(try values("[peerd]\r\nname = box\r\nport = 4000\r\n"), ["name": "box", "port": "4000"])
        XCTAssertEqual(try values("\u{FEFF}[peerd]\nname = box\n"), ["name": "box"])
        let bytes: [UInt8] = [0xEF, 0xBB, 0xBF] + Array("[peerd]\r\nname = box\r\n".utf8)
        XCTAssertEqual(try values(try ConfigFile.text(of: bytes)), ["name": "box"])
    }

    func testCommentsStartAtTheLineOrAfterWhitespace() throws {
        let parsed = try values("[peerd] # the section\nname = a # a note\ninfo = k=v#1\ngroup = staff ; why\n")
        XCTAssertEqual(parsed["name"], "a")
        XCTAssertEqual(parsed["info"], "k=v#1", "a # inside a value is kept")
        XCTAssertEqual(parsed["group"], "staff")
    }

    func testInvalidUTF8IsRefusedWithItsLine() {
        XCTAssertThrowsError(try ConfigFile.text(of: Array("[peerd]\nname = ".utf8) + [0xC3, 0x28] + [0x0A])) { error in
            XCTAssertEqual("\(error)", "line 2: not UTF-8 (is this a configuration file?)")
        }
    }

    func testErrorsShowInvisibleAndControlCharacters() {
        XCTAssertThrowsError(try ConfigFile.entries("[peerd]\nna\u{200B}me = x\n")) { error in
            XCTAssertEqual("\(error)", "line 2: unknown key 'na\\u{200b}me'")
        }
        XCTAssertThrowsError(try ConfigFile.entries("[peerd]\n\u{1B}[2J\u{0}binary\n")) { error in
            XCTAssertFalse("\(error)".contains("\u{1B}"), "no raw escape reaches the terminal")
            XCTAssertTrue("\(error)".contains("\\x1b[2J\\x00binary"), "\(error)")
        }
    }
}
