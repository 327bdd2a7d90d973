import XCTest
@testable import PeerCore
import PeerProtocol

/// A session's app numbers, both ways, as tables.
final class AppBindingsTests: XCTestCase {
    func testOutgoingNumbersAreGivenOnceAndAnnouncedOnce() throws {
        var bindings = AppBindings()
        let chat = try AppName("chat"), clip = try AppName("clip")
        let table: [(AppName, UInt16, Bool)] = [
            (chat, 1, true), (chat, 1, false), (clip, 2, true), (AppName.none, 0, false), (clip, 2, false), (chat, 1, false),
        ]
        for (app, number, announce) in table {
            let got = bindings.outgoingNumber(for: app)
            XCTAssertEqual(got?.number, number, "\(app)")
            XCTAssertEqual(got?.announce, announce, "\(app)")
        }
        var full = AppBindings()
        for i in 0..<AppBindings.maxBindings { XCTAssertNotNil(full.outgoingNumber(for: try AppName("a\(i)"))) }
        XCTAssertNil(full.outgoingNumber(for: try AppName("one-more")), "bounded")
        XCTAssertEqual(full.outgoingNumber(for: try AppName("a0"))?.number, 1, "a bound app keeps its number")
    }

    func testWhatAPeerBindsAndWhatIsAProtocolError() throws {
        var bindings = AppBindings()
        let table: [(UInt16, String, AppBindingProblem?)] = [
            (1, "chat", nil),
            (7, "clip", nil),                  // numbers need not be consecutive
            (1, "other", .rebound(1)),
            (0, "chat", .zero),
            (2, "Bad", .badName("Bad", .character("B"))),
        ]
        for (number, name, problem) in table {
            XCTAssertEqual(bindings.peerBound(number, to: name), problem, "\(number) \(name)")
        }
        XCTAssertEqual(bindings.incomingApp(1), try AppName("chat"))
        XCTAssertEqual(bindings.incomingApp(7), try AppName("clip"))
        XCTAssertEqual(bindings.incomingApp(0), AppName.none)
        XCTAssertNil(bindings.incomingApp(2), "a refused binding binds nothing")
        var full = AppBindings()
        for i in 1...AppBindings.maxBindings { XCTAssertNil(full.peerBound(UInt16(i), to: "a\(i)")) }
        XCTAssertEqual(full.peerBound(999, to: "more"), .tooMany(max: AppBindings.maxBindings))
        XCTAssertEqual(AppBindingProblem.rebound(3).description, "appOpen of number 3, bound already in this session")
    }
}
