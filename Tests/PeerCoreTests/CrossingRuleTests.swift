import XCTest
@testable import PeerCore

final class CrossingRuleTests: XCTestCase {
    typealias Existing = CrossingRule.Existing

    func testTable() {
        let small = "0aaa", large = "ffff"
        let rows: [(String, Existing, String, String, CrossingRule.Verdict)] = [
            ("a connected session stays", Existing(connected: true, dialledByUs: true, authenticated: true, age: 9), large, small, .closeIncoming),
            ("an incoming session that came first stays", Existing(connected: false, dialledByUs: false, authenticated: true, age: 0.1), small, large, .closeIncoming),
            ("our live dial, our id smaller: ours wins", Existing(connected: false, dialledByUs: true, authenticated: true, age: 0.1), small, large, .closeIncoming),
            ("our live dial, their id smaller: theirs wins", Existing(connected: false, dialledByUs: true, authenticated: true, age: 0.1), large, small, .replaceExisting),
            ("our fresh unproven dial still counts", Existing(connected: false, dialledByUs: true, authenticated: false, age: 0.5), small, large, .closeIncoming),
            ("our dial stuck over 1 s does not count", Existing(connected: false, dialledByUs: true, authenticated: false, age: 1.5), small, large, .replaceExisting),
            ("a stuck dial loses whatever the ids", Existing(connected: false, dialledByUs: true, authenticated: false, age: 3), large, small, .replaceExisting),
        ]
        for (name, existing, ours, theirs, expected) in rows {
            XCTAssertEqual(CrossingRule.decide(existing: existing, ours: ours, theirs: theirs), expected, name)
        }
    }
}
