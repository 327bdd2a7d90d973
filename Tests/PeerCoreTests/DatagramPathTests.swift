import FoundationEssentials
import XCTest
@testable import PeerCore

/// Whether datagrams cross (docs/protocol.md §11, "Probes"), as a table:
/// each row an event at a second, and the state and probes after it.
final class DatagramPathTests: XCTestCase {
    private enum Event {
        case learned(Bool)
        case tick
        case replied(UInt64)
    }

    private let start = Date(timeIntervalSince1970: 1_000_000)

    private func run(_ rows: [(second: Double, event: Event, state: DatagramPath.State, probes: [UInt64])],
                     file: StaticString = #filePath, line: UInt = #line) -> DatagramPath {
        var path = DatagramPath()
        for (second, event, state, probes) in rows {
            let now = start.addingTimeInterval(second)
            var actions: [DatagramPath.Action] = []
            switch event {
            case .learned(let usable): actions = path.learned(usable: usable, now: now)
            case .tick: actions = path.tick(now: now)
            case .replied(let id): path.replied(id, now: now)
            }
            XCTAssertEqual(path.state, state, "at \(second) s after \(event)", file: file, line: line)
            XCTAssertEqual(actions, probes.map { .probe($0) }, "at \(second) s after \(event)", file: file, line: line)
        }
        return path
    }

    func testAWaitingPathSendsNothing() {
        _ = run([(0, .tick, .waiting, []), (1, .replied(1), .waiting, [])])
    }

    func testNoSocketOnEitherSideIsOff() {
        _ = run([(0, .learned(false), .off, []), (1, .tick, .off, []), (2, .replied(1), .off, [])])
    }

    func testAnsweredProbesMakeItUpWithARoundTrip() {
        let path = run([
            (0, .learned(true), .probing, [1]),
            (1, .tick, .probing, [2]),
            (1.0002, .replied(2), .up, []),
            (2, .tick, .up, []),
            (15.9, .tick, .up, []),
            (16, .tick, .up, [3]),
        ])
        XCTAssertEqual(path.roundTrip ?? 0, 0.0002, accuracy: 1e-6)
    }

    func testNoAnswerWithinFiveSecondsIsBlockedAndAReplyLaterHeals() {
        _ = run([
            (0, .learned(true), .probing, [1]),
            (1, .tick, .probing, [2]),
            (2, .tick, .probing, [3]),
            (3, .tick, .probing, [4]),
            (4, .tick, .probing, [5]),
            (5, .tick, .blocked, [6]),
            (6, .tick, .blocked, []),
            (14, .tick, .blocked, []),
            (15, .tick, .blocked, [7]),
            (15.001, .replied(7), .up, []),
        ])
    }

    func testAnUpPathThatStopsAnsweringIsBlocked() {
        _ = run([
            (0, .learned(true), .probing, [1]),
            (0.001, .replied(1), .up, []),
            (15, .tick, .up, [2]),
            (30, .tick, .up, [3]),
            (44.9, .tick, .up, []),
            (45.001, .tick, .blocked, [4]),
        ])
    }

    func testAReplyToAProbeNeverSentChangesNothing() {
        _ = run([
            (0, .learned(true), .probing, [1]),
            (0.5, .replied(2), .probing, []),
            (0.6, .replied(0), .probing, []),
            (0.7, .replied(1), .up, []),
        ])
    }
}
