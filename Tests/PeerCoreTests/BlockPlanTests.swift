import XCTest
@testable import PeerCore

final class BlockPlanTests: XCTestCase {
    func testBlockSizesTable() {
        let KiB: Int64 = 1024, MiB = 1024 * KiB, GiB = 1024 * MiB
        // (file size, block size, block count)
        let rows: [(Int64, Int, Int)] = [
            (0, 128 << 10, 0),
            (1, 128 << 10, 1),
            (128 * KiB, 128 << 10, 1),
            (128 * KiB + 1, 128 << 10, 2),
            (250 * MiB, 128 << 10, 2000),
            (250 * MiB + 1, 256 << 10, 1001),
            (1 * GiB, 1 << 20, 1024),
            (100 * MiB, 128 << 10, 800),
            (32000 * MiB, 16 << 20, 2000),
            (100 * GiB, 16 << 20, 6400),
        ]
        for (size, blockSize, count) in rows {
            let plan = BlockPlan(fileSize: size)
            XCTAssertEqual(plan.blockSize, blockSize, "block size for \(size)")
            XCTAssertEqual(plan.count, count, "blocks for \(size)")
        }
    }

    func testRangesCoverTheFileExactly() {
        let plan = BlockPlan(fileSize: 300 * 1024 + 7)
        XCTAssertEqual(plan.count, 3)
        XCTAssertEqual(plan.range(of: 0), 0..<131_072)
        XCTAssertEqual(plan.range(of: 2), 262_144..<307_207)
        XCTAssertEqual((0..<plan.count).map { plan.range(of: $0).count }.reduce(0, +), 300 * 1024 + 7)
    }
}
