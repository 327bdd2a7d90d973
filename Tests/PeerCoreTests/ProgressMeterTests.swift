import Foundation
import XCTest
@testable import PeerCore

final class ProgressMeterTests: XCTestCase {
    func testReportsAreThrottledAndTheRateFollowsTheFlow() {
        let start = Date(timeIntervalSince1970: 1000)
        var meter = ProgressMeter(totalBytes: 10_000_000, totalFiles: 2, now: start)
        // (seconds after start, bytes added, files done, whether a report comes)
        let rows: [(TimeInterval, Int64, Int, Bool)] = [
            (0.00, 100_000, 0, true),
            (0.05, 100_000, 0, false),
            (0.09, 100_000, 0, false),
            (0.10, 100_000, 0, true),
            (0.15, 100_000, 0, false),
            (0.25, 100_000, 1, true),
        ]
        var reports = 0
        for (after, bytes, files, expected) in rows {
            let report = meter.advance(bytes: bytes, filesDone: files, now: start.addingTimeInterval(after))
            XCTAssertEqual(report != nil, expected, "at +\(after) s")
            if report != nil { reports += 1 }
        }
        XCTAssertEqual(reports, 3)
        let now = meter.report
        XCTAssertEqual(now.bytes, 600_000)
        XCTAssertEqual(now.files, 1)
        // 400 kB in the first 0.10 s, then 200 kB over 0.15 s: between 1.3 and 4 MB/s.
        XCTAssertGreaterThan(now.rate, 1_300_000)
        XCTAssertLessThan(now.rate, 4_000_000)
        XCTAssertEqual(now.eta ?? 0, Double(10_000_000 - 600_000) / now.rate, accuracy: 0.001)
    }

    func testTheLastReportAlwaysComesAndNeverPassesTheTotal() {
        let start = Date(timeIntervalSince1970: 0)
        var meter = ProgressMeter(totalBytes: 1000, totalFiles: 1, now: start)
        XCTAssertNotNil(meter.advance(bytes: 500, now: start))
        let last = meter.advance(bytes: 900, filesDone: 1, now: start.addingTimeInterval(0.01))
        XCTAssertEqual(last?.bytes, 1000, "clamped to the total, and reported though only 10 ms passed")
        XCTAssertEqual(last?.eta, 0)
        let idle = ProgressMeter(totalBytes: 1000, totalFiles: 1, now: start)
        XCTAssertNil(idle.report.eta, "no rate yet, no ETA")
    }
}
