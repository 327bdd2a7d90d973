import XCTest
@testable import PeerCore

/// The app-name rule (MPC's `serviceType`, RFC 6335's service names) as a
/// table: each name, and the rule it breaks or nil.
final class AppNameTests: XCTestCase {
    func testTheRuleAsATable() {
        let table: [(String, AppNameProblem?)] = [
            ("chat", nil),
            ("a", nil),
            ("clip-share", nil),
            ("x1", nil),
            ("abcdefghijklmno", nil),                      // 15
            ("abcdefghijklmnop", .tooLong(characters: 16)),
            ("", .empty),
            ("Chat", .character("C")),
            ("chat_room", .character("_")),
            ("chat.room", .character(".")),
            ("chät", .character("ä")),
            ("chat\u{200B}", .character("\u{200B}")),
            ("123", .noLetter),
            ("1-2", .noLetter),
            ("-chat", .hyphenAtEnd),
            ("chat-", .hyphenAtEnd),
            ("chat--room", .hyphensTogether),
        ]
        for (name, problem) in table {
            XCTAssertEqual(AppName.problem(of: name), problem, name)
            if let problem {
                XCTAssertThrowsError(try AppName(name)) { XCTAssertEqual($0 as? AppNameProblem, problem, name) }
            } else {
                XCTAssertEqual(try AppName(name).text, name)
            }
        }
    }

    func testTheDefaultAppIsNamedByNamingNone() throws {
        XCTAssertTrue(try AppName("", allowDefault: true).isDefault)
        XCTAssertEqual(try AppName("", allowDefault: true), AppName.none)
        XCTAssertThrowsError(try AppName("")) { XCTAssertEqual($0 as? AppNameProblem, .empty) }
        XCTAssertEqual(AppName.none.description, "the default app")
    }

    func testTheSubtypeAndTheWordsOfEachRule() throws {
        XCTAssertEqual(try AppName("chat").subtype(of: "_peerd._tcp"), "_chat._sub._peerd._tcp")
        XCTAssertEqual(AppNameProblem.tooLong(characters: 16).description, "an app name has at most 15 characters; this one has 16")
        XCTAssertEqual(AppNameProblem.character("_").description,
                       "an app name has only lowercase ASCII letters, digits and hyphens; '_' is none of them")
        XCTAssertEqual(AppNameProblem.character("\u{200B}").description,
                       "an app name has only lowercase ASCII letters, digits and hyphens; U+200B is none of them")
        XCTAssertEqual(AppNameProblem.hyphensTogether.description, "an app name has no two hyphens together")
    }
}
