import XCTest
@testable import PeerCore

/// The stage's decisions (issue 44): which bytes wait, which go to disk
/// directly, which through the page cache, and that every byte offered is
/// written exactly once, at its offset.
final class StagedWritesTests: XCTestCase {
    typealias Action = StagedWrites.Action

    func testDecisionsTable() {
        let page = StagedWrites.alignment
        // (writes as (offset, count), then a flush?, the actions of each step)
        let rows: [(name: String, writes: [(Int64, Int)], flush: Bool, expected: [[Action]])] = [
            ("an aligned chunk waits", [(0, 1000)], false,
             [[.stage(from: 0, count: 1000, to: 0)]]),
            ("filling the stage writes it directly and starts the next", [(0, 3 * page), (Int64(3 * page), 2 * page)], false,
             [[.stage(from: 0, count: 3 * page, to: 0)],
              [.stage(from: 0, count: page, to: 3 * page), .writeStage(from: 0, count: 4 * page, at: 0, direct: true),
               .stage(from: page, count: page, to: 0)]]),
            ("an unaligned start goes through the page cache", [(100, 500)], false,
             [[.writeThrough(from: 0, count: 500, at: 100)]]),
            ("a flush writes the aligned part directly and the tail through the cache", [(0, page + 10)], true,
             [[.stage(from: 0, count: page + 10, to: 0)],
              [.writeStage(from: 0, count: page, at: 0, direct: true), .writeStage(from: page, count: 10, at: Int64(page), direct: false)]]),
            ("a write that does not follow flushes first", [(0, page), (Int64(8 * page), 10)], false,
             [[.stage(from: 0, count: page, to: 0)],
              [.writeStage(from: 0, count: page, at: 0, direct: true), .stage(from: 0, count: 10, to: 0)]]),
            ("a flush of nothing does nothing", [], true, [[]]),
            ("a chunk larger than two stages", [(0, 9 * page)], false,
             [[.stage(from: 0, count: 4 * page, to: 0), .writeStage(from: 0, count: 4 * page, at: 0, direct: true),
               .stage(from: 4 * page, count: 4 * page, to: 0), .writeStage(from: 0, count: 4 * page, at: Int64(4 * page), direct: true),
               .stage(from: 8 * page, count: page, to: 0)]]),
        ]
        for row in rows {
            var plan = StagedWrites(capacity: 4 * page)
            var got: [[Action]] = row.writes.map { plan.write(offset: $0.0, count: $0.1) }
            if row.flush { got.append(plan.flush()) }
            XCTAssertEqual(got, row.expected, row.name)
        }
    }

    func testTheCapacityIsWholePages() {
        XCTAssertEqual(StagedWrites(capacity: 10_000).capacity, 8192)
        XCTAssertEqual(StagedWrites(capacity: 1).capacity, StagedWrites.alignment)
    }

    /// Runs the decisions on a model disk and stage: every byte of many
    /// writes of odd sizes lands once, at its offset, direct writes only
    /// aligned.
    func testEveryByteLandsOnceAtItsOffset() {
        let page = StagedWrites.alignment
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<50 {
            let capacity = page * Int.random(in: 1...6, using: &generator)
            var plan = StagedWrites(capacity: capacity)
            let size = Int.random(in: 1...(40 * page), using: &generator)
            let source = (0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }
            var disk = [UInt8?](repeating: nil, count: size)
            var stage = [UInt8](repeating: 0, count: capacity)
            // Starts at a block boundary, as a transfer or a resume does.
            var offset = 0
            func apply(_ actions: [Action], chunk: ArraySlice<UInt8>) {
                for action in actions {
                    switch action {
                    case .stage(let from, let count, let to):
                        stage.replaceSubrange(to..<to + count, with: chunk[chunk.startIndex + from..<chunk.startIndex + from + count])
                    case .writeStage(let from, let count, let at, let direct):
                        if direct { XCTAssertTrue(from % page == 0 && count % page == 0 && at % Int64(page) == 0) }
                        for index in 0..<count {
                            XCTAssertNil(disk[Int(at) + index], "written twice")
                            disk[Int(at) + index] = stage[from + index]
                        }
                    case .writeThrough(let from, let count, let at):
                        for index in 0..<count {
                            XCTAssertNil(disk[Int(at) + index], "written twice")
                            disk[Int(at) + index] = chunk[chunk.startIndex + from + index]
                        }
                    }
                }
            }
            while offset < size {
                let count = min(size - offset, Int.random(in: 1...(3 * page), using: &generator))
                let chunk = source[offset..<offset + count]
                apply(plan.write(offset: Int64(offset), count: count), chunk: chunk)
                offset += count
                if Int.random(in: 0..<8, using: &generator) == 0 { apply(plan.flush(), chunk: []) }
            }
            apply(plan.flush(), chunk: [])
            XCTAssertEqual(disk.map { $0 ?? 0 }, source)
            XCTAssertFalse(disk.contains(nil))
        }
    }
}
