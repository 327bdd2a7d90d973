import FoundationEssentials
import XCTest
@testable import PeerCore
@testable import PeerProtocol

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

/// What a peer's TXT pairs say of its apps.
final class AdvertisedAppTests: XCTestCase {
    func testAppsAreReadFromTheListAndTheirDottedPairs() {
        let txt = ["txtvers": "1", "id": "x", "apps": "chat,clip,Bad,,x--y", "chat.room": "lobby", "clip.v": "2",
                   "Bad.k": "v", "other.k": "v", "chat.": "empty field"]
        XCTAssertEqual(AdvertisedApp.parse(txt), ["chat": AdvertisedApp(info: ["room": "lobby"]), "clip": AdvertisedApp(info: ["v": "2"])])
        XCTAssertNil(AdvertisedApp.parse(["txtvers": "1"]), "a release without apps lists none")
        XCTAssertNil(AdvertisedApp.parse(["apps": "Bad"]), "nothing valid: none")
        let snapshot = PeerSnapshot(id: UUID(), peerId: nil, name: "h", state: .notConnected, endpoints: [], info: txt,
                                    lastSeen: Date(timeIntervalSince1970: 0), lost: false)
        XCTAssertEqual(snapshot.apps?.keys.sorted(), ["chat", "clip"])
    }
}
