import Foundation
import XCTest
@testable import PeerCore

final class HealthReportTests: XCTestCase {
    func testWatchdogAndStatusTable() {
        let start = Date(timeIntervalSince1970: 100)
        var report = HealthReport(watchdogInterval: 2.5)
        XCTAssertEqual(report.ready(status: "a", now: start), [.ready("a"), .watchdog])
        // (seconds after start, status, expected notices)
        let rows: [(TimeInterval, String, [HealthReport.Notice])] = [
            (1, "a", []),
            (2, "b", [.status("b")]),
            (2.5, "b", [.watchdog]),
            (3, "b", []),
            (5, "c", [.watchdog, .status("c")]),
            (60, "c", [.watchdog]),
        ]
        for (after, status, expected) in rows {
            XCTAssertEqual(report.tick(now: start.addingTimeInterval(after), status: status), expected, "at +\(after) s")
        }
        var quiet = HealthReport(watchdogInterval: nil)
        XCTAssertEqual(quiet.ready(status: "a", now: start), [.ready("a")], "no watchdog without WatchdogSec=")
        XCTAssertEqual(quiet.tick(now: start.addingTimeInterval(100), status: "a"), [])
    }
}
