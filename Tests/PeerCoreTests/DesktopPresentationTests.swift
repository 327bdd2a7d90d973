import FoundationEssentials
import XCTest
import PeerProtocol
@testable import PeerTools

/// The desktop app's list and detail (issue 45, point 1), as tables:
/// sections in a fixed order with the model's order inside, states in
/// words, and the actions each state allows.
final class DesktopPresentationTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 1_800_000_000)

    private func peer(_ n: Int, _ name: String, paired: Bool = false, lost: Bool = false, endpoints: Bool = true, learned: String? = nil,
                      state: ConnectionState = .notConnected) -> PeerSnapshot {
        var row = PeerSnapshot(id: UUID(uuidString: "00000000-0000-0000-0000-00000000000\(n)")!, peerId: String(repeating: "\(n)", count: 32), name: name,
                               state: state, endpoints: endpoints ? [Endpoint(interface: "eth0", family: .ipv4, address: "169.254.0.\(n)", port: 7717)] : [],
                               info: [:], lastSeen: t0, lost: lost)
        row.paired = paired
        row.learnedAddress = learned
        return row
    }

    func testSectionsKeepTheirOrderAndTheModelsOrderInside() {
        let peers = [peer(1, "alpha"), peer(2, "beta", paired: true), peer(3, "gamma", endpoints: false, learned: "10.0.2.7:7717"),
                     peer(4, "delta\u{7}", lost: true), peer(5, "omega", paired: true, state: .connected)]
        let sections = PeerListPresentation.sections(peers, states: [peers[4].id: .connected])
        XCTAssertEqual(sections.map(\.title), ["Paired", "Nearby", "Added"])
        XCTAssertEqual(sections[0].rows.map(\.name), ["beta", "omega"])
        XCTAssertEqual(sections[0].rows.map(\.state), ["not connected", "connected"])
        XCTAssertEqual(sections[1].rows.map(\.name), ["alpha", "delta "], "a peer's name loses its control characters")
        XCTAssertEqual(sections[1].rows.map(\.state), ["not connected", "lost"])
        XCTAssertEqual(sections[2].rows.map(\.name), ["gamma"])
        XCTAssertEqual(PeerListPresentation.sections([peer(1, "alpha")], states: [:]).map(\.title), ["Nearby"], "empty sections are left out")
    }

    func testTheDetailOffersWhatTheStateAllows() {
        let rows: [(String, PeerSnapshot, ConnectionState, [PeerDetailPresentation.Action])] = [
            ("nearby, not connected", peer(1, "a"), .notConnected, [.invite]),
            ("connecting", peer(1, "a"), .connecting, [.disconnect]),
            ("paired and connected", peer(1, "a", paired: true), .connected, [.disconnect]),
            ("lost", peer(1, "a", lost: true), .notConnected, []),
        ]
        for (name, row, state, actions) in rows {
            XCTAssertEqual(PeerDetailPresentation(row, state: state).actions, actions, name)
        }
        let detail = PeerDetailPresentation(peer(3, "gamma", endpoints: false, learned: "10.0.2.7:7717"), state: .notConnected)
        XCTAssertEqual(detail.title, "gamma")
        XCTAssertEqual(detail.facts.first { $0.label == "Addresses" }?.value, "10.0.2.7:7717", "an added peer shows the address it was added by")
        XCTAssertEqual(detail.facts.first { $0.label == "State" }?.value, "not connected")
        XCTAssertEqual(PeerDetailPresentation.Action.allCases.map(\.label), ["Invite", "Disconnect"])
    }
}

/// The desktop programs' command lines, as a table.
final class DesktopArgumentsTests: XCTestCase {
    func testOptionsTakeOneValueAndMistakesSayWhat() {
        let options: Set<String> = ["--socket", "--size"]
        let rows: [([String], Result<DesktopArguments.Parsed, DesktopArguments.UsageMistake>)] = [
            ([], .success(.options([:]))),
            (["--socket", "/run/x.sock", "--size", "360x640"], .success(.options(["--socket": "/run/x.sock", "--size": "360x640"]))),
            (["--socket", "a", "--socket", "b"], .success(.options(["--socket": "b"]))),
            (["--size", "1x1", "--help"], .success(.help)),
            (["-h"], .success(.help)),
            (["--socket"], .failure(.init(text: "--socket needs a value"))),
            (["--socket", ""], .failure(.init(text: "--socket needs a value"))),
            (["--bogus"], .failure(.init(text: "unknown argument '--bogus'"))),
        ]
        for (words, expected) in rows {
            XCTAssertEqual(DesktopArguments.parse(words, options: options), expected, words.joined(separator: " "))
        }
    }
}
