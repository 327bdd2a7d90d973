@testable import PeerCore
@testable import PeerTools
import XCTest
import PeerProtocol

final class TerminalTextTests: XCTestCase {
    func testControlsAndBidiAreEscapedAndPlainTextIsKept() {
        let cases: [(String, String)] = [
            ("host-1 café 東京", "host-1 café 東京"),
            ("\u{1B}[2Jclear", "\\x1b[2Jclear"),
            ("\u{1B}]0;title\u{07}", "\\x1b]0;title\\x07"),
            ("two\nlines\r\t", "two\\nlines\\r\\t"),
            ("del\u{7F}", "del\\x7f"),
            ("c1\u{9B}31m", "c1\\u{9b}31m"),
            ("\u{202E}evil\u{2066}\u{200F}", "\\u{202e}evil\\u{2066}\\u{200f}"),
            ("back\\slash", "back\\\\slash"),
            ("nul\u{0}", "nul\\x00"),
            // Issue 42, point 4: what file names refuse as invisible.
            ("host2\u{2028}paired", "host2\\u{2028}paired"),
            ("para\u{2029}", "para\\u{2029}"),
            ("zero\u{200B}width\u{200D}joined\u{FEFF}", "zero\\u{200b}width\\u{200d}joined\\u{feff}"),
            ("soft\u{AD}hyphen\u{FE0F}", "soft\\u{ad}hyphen\\u{fe0f}"),
            ("filler\u{3164}", "filler\\u{3164}"),
            ("Аnna nbsp\u{A0}", "Аnna nbsp\u{A0}"),     // letters of any script, and no-break space, stay
        ]
        for (raw, shown) in cases { XCTAssertEqual(TerminalText.escape(raw), shown, "escaping \(Array(raw.unicodeScalars))") }
    }

    func testTablesEscapeEveryCell() {
        var table = TextTable(header: ["NAME"])
        table.rows = [["\u{1B}[31mred"]]
        XCTAssertFalse(table.render().contains("\u{1B}"))
        XCTAssertTrue(table.render().contains("\\x1b[31mred"))
    }
}
