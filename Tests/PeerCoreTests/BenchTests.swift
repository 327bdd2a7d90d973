@testable import PeerCore
@testable import PeerTools
import XCTest

/// peerbench's pure parts: summaries, the A B A B order, and the table.
final class BenchTests: XCTestCase {
    func testSummaryTable() throws {
        let rows: [([Double], BenchSummary?)] = [
            ([], nil),
            ([5], BenchSummary(runs: 1, min: 5, median: 5, max: 5)),
            ([3, 1, 2], BenchSummary(runs: 3, min: 1, median: 2, max: 3)),
            ([4, 1, 3, 2], BenchSummary(runs: 4, min: 1, median: 2.5, max: 4)),
        ]
        for (values, expected) in rows { XCTAssertEqual(BenchSummary(values), expected, "\(values)") }
    }

    func testQuantilesInterpolateBetweenRanks() {
        let sorted = (1...101).map(Double.init)
        XCTAssertEqual(BenchSummary.quantile(sorted, 0.99), 100)
        XCTAssertEqual(BenchSummary.quantile(sorted, 0.5), 51)
        XCTAssertEqual(BenchSummary.quantile([1, 2], 0.99), 1.99, accuracy: 1e-9)
        XCTAssertEqual(BenchSummary.quantile([], 0.5), 0)
    }

    func testVariantsTakeTurnsRunAfterRun() {
        let steps = BenchSchedule.steps([("rate", ["peerd", "iperf3"]), ("setup", ["peerd", "tcp", "ssh"])], runs: 2)
        XCTAssertEqual(steps.map { "\($0.comparison):\($0.variant):\($0.run)" }, [
            "rate:peerd:1", "rate:iperf3:1", "rate:peerd:2", "rate:iperf3:2",
            "setup:peerd:1", "setup:tcp:1", "setup:ssh:1", "setup:peerd:2", "setup:tcp:2", "setup:ssh:2",
        ])
        XCTAssertEqual(BenchSchedule.steps([("x", ["a"])], runs: 0).count, 1, "at least one run")
    }

    func testTheTableShowsMediansRatiosAndFailures() {
        let rows = [
            BenchRow(comparison: "rate", variant: "peerd", unit: "msg/s", summary: BenchSummary([100_000, 120_000, 110_000])),
            BenchRow(comparison: "rate", variant: "iperf3", unit: "msg/s", summary: BenchSummary([220_000])),
            BenchRow(comparison: "setup", variant: "peerd", unit: "ms", summary: nil, note: "5 of 5 runs failed"),
        ]
        let table = BenchTable.render(rows)
        let lines = table.split(separator: "\n").map(String.init)
        XCTAssertTrue(lines[0].hasPrefix("figure"))
        XCTAssertTrue(lines[2].contains("110000") && lines[2].contains("100000") && lines[2].contains("120000"), lines[2])
        XCTAssertTrue(lines[3].contains("0.500×"), "peerd's median over iperf3's: \(lines[3])")
        XCTAssertTrue(lines[4].contains("failed"), lines[4])
        XCTAssertTrue(table.contains("- setup, peerd: 5 of 5 runs failed"))
    }

    func testNumbersKeepAboutThreeFigures() {
        let rows: [(Double, String)] = [(123_456, "123456"), (12.345, "12.3"), (1.2345, "1.23"), (0.01234, "0.012"), (-0.0001, "0.000"), (0, "0.000")]
        for (value, text) in rows { XCTAssertEqual(BenchTable.format(value), text, "\(value)") }
    }
}
