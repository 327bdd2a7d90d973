import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
@testable import PeerSystem
import PeerProtocol
import Synchronization

/// A large received file's bytes go to disk past the page cache, a stage
/// at a time (issue 44, ``DirectStage``): every byte lands at its offset,
/// a recorded block is on disk before its record, the stage's slot and
/// memory go back when the file is finished, and the landed file's pages
/// are not left in the page cache.
final class DirectStageTests: XCTestCase {
    private var root: String!
    private let flow = FlowID(bytes: Array(1...16))!

    override func setUp() {
        try? Sodium.initialize()
        root = NSTemporaryDirectory() + "peerd-direct-\(UUID().uuidString)"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    func testALargeFileLandsWholeAndItsRecordsNeverRunAheadOfItsBytes() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let size: Int64 = (9 << 20) + 123   // 128 KiB blocks, an unaligned tail
        let plan = BlockPlan(fileSize: size)
        let bytes = (0..<Int(size)).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ $0 >> 12) }
        let folder = try DownloadFolder.folder(of: try TransferPath.check("big.bin").get(), peerFolder: "host1", root: rootFD, create: true)
        let partial = PartialFile(folder: folder, flow: flow, index: 0)
        defer { partial.close() }
        let before = DirectStage.count
        try partial.open(header: BlockRecord.Header(flow: flow, file: 0, size: size, blockSize: plan.blockSize,
                                                    bootID: [UInt8](repeating: 3, count: 16)), keptBlocks: 0)
        XCTAssertEqual(DirectStage.count, before + 1, "a file of 9 MiB has a stage")
        let reader = try folder.openAt(partial.partName, flags: O_RDONLY)
        defer { reader.close() }
        for block in 0..<plan.count {
            let range = plan.range(of: block)
            // Chunks of odd sizes, as frames of any size would come.
            var offset = Int(range.lowerBound)
            while offset < Int(range.upperBound) {
                let end = min(Int(range.upperBound), offset + 40_000)
                try bytes[offset..<end].withUnsafeBytes { try partial.write($0, at: Int64(offset)) }
                offset = end
            }
            try partial.recordBlock(block, hash: Blake2b.hash(Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)])))
            if block == 3 {
                // A record never claims bytes that are not written yet.
                XCTAssertEqual(try reader.read(count: Int(range.count), at: range.lowerBound), Array(bytes[Int(range.lowerBound)..<Int(range.upperBound)]))
            }
        }
        let name = try partial.finish(name: "big.bin", size: size, mode: 0o644, mtime: 1_764_460_800)
        XCTAssertEqual(DirectStage.count, before, "finishing gives the slot back")
        let landed = root + "/host1/" + name
        XCTAssertEqual(try Data(contentsOf: URL(fileURLWithPath: landed)).count, Int(size))
        XCTAssertEqual(Array(try Data(contentsOf: URL(fileURLWithPath: landed))), bytes)
    }

    func testTheDirectlyWrittenPagesAreNotLeftInThePageCache() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let size: Int64 = 16 << 20
        let plan = BlockPlan(fileSize: size)
        let chunk = [UInt8](repeating: 0x5A, count: 65_536)
        let folder = try DownloadFolder.folder(of: try TransferPath.check("cold.bin").get(), peerFolder: "host1", root: rootFD, create: true)
        let partial = PartialFile(folder: folder, flow: flow, index: 0)
        defer { partial.close() }
        try partial.open(header: BlockRecord.Header(flow: flow, file: 0, size: size, blockSize: plan.blockSize,
                                                    bootID: [UInt8](repeating: 3, count: 16)), keptBlocks: 0)
        for offset in stride(from: Int64(0), to: size, by: chunk.count) { try chunk.withUnsafeBytes { try partial.write($0, at: offset) } }
        _ = try partial.finish(name: "cold.bin", size: size, mode: 0o644, mtime: 0)
        let fd = try folder.openAt("cold.bin", flags: O_RDONLY)
        defer { fd.close() }
        XCTAssertLessThan(try residentFraction(fd, count: Int(size)), 0.5,
                          "written with O_DIRECT: the page cache holds (almost) none of it")
    }

    /// Queued all at once, block by block, each block's record is written
    /// after its bytes and before the next block's (``PendingWrites``): at
    /// each record the file on disk ends exactly at its block's end, which
    /// bounds what a receiver killed mid-transfer receives again.
    @MainActor
    func testEachRecordComesBetweenItsBlockAndTheNext() async throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let size: Int64 = 9 << 20
        let plan = BlockPlan(fileSize: size)
        let folder = try DownloadFolder.folder(of: try TransferPath.check("order.bin").get(), peerFolder: "host1", root: rootFD, create: true)
        let partial = PartialFile(folder: folder, flow: flow, index: 0, hashesBytes: false)
        defer { partial.close() }
        try partial.open(header: BlockRecord.Header(flow: flow, file: 0, size: size, blockSize: plan.blockSize,
                                                    bootID: [UInt8](repeating: 3, count: 16)), keptBlocks: 0)
        let chunk = [UInt8](repeating: 0x33, count: 32_768)
        let sizes = SizeLog()
        let done = expectation(description: "records")
        done.expectedFulfillmentCount = 4
        let name = partial.partName
        for block in 0..<4 {
            let range = plan.range(of: block)
            for offset in stride(from: range.lowerBound, to: range.upperBound, by: chunk.count) {
                chunk.withUnsafeBytes { partial.writeLater($0, at: offset) { XCTAssertNil($0) } }
            }
            partial.verifyBlockLater(block, hash: [UInt8](repeating: 1, count: 32)) { _ in done.fulfill() }
            PendingWrites.addStep {
                var size: Int64 = -1
                if let fd = try? folder.openAt(name, flags: O_RDONLY) {
                    if let info = try? fd.status() { size = Int64(info.st_size) }
                    fd.close()
                }
                sizes.append(size)
            }
        }
        await fulfillment(of: [done], timeout: 10)
        PartialFile.settle()
        XCTAssertEqual(sizes.all, (1...4).map { Int64($0) * Int64(plan.blockSize) },
                       "at each record the file ends at its block's end, never past it")
    }

    func testASmallFileHasNoStage() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let folder = try DownloadFolder.folder(of: try TransferPath.check("small.bin").get(), peerFolder: "host1", root: rootFD, create: true)
        let partial = PartialFile(folder: folder, flow: flow, index: 0)
        defer { partial.close() }
        let before = DirectStage.count
        try partial.open(header: BlockRecord.Header(flow: flow, file: 0, size: 4 << 20, blockSize: BlockPlan.minBlockSize,
                                                    bootID: [UInt8](repeating: 3, count: 16)), keptBlocks: 0)
        XCTAssertEqual(DirectStage.count, before)
    }

    /// Stages are counted per peer (``StageSlots``): a third large file
    /// from one peer is written through the page cache, while another
    /// peer's still gets a stage.
    func testOnePeerHoldsAtMostItsShareOfStages() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let before = DirectStage.count
        var partials: [PartialFile] = []
        defer { partials.forEach { $0.close() } }
        for (index, owner) in ["greedy", "greedy", "greedy", "other"].enumerated() {
            let folder = try DownloadFolder.folder(of: try TransferPath.check("f\(index).bin").get(), peerFolder: "host1", root: rootFD, create: true)
            let partial = PartialFile(folder: folder, flow: flow, index: index, owner: owner)
            partials.append(partial)
            try partial.open(header: BlockRecord.Header(flow: flow, file: UInt32(index), size: 64 << 20, blockSize: 128 << 10,
                                                        bootID: [UInt8](repeating: 3, count: 16)), keptBlocks: 0)
        }
        XCTAssertEqual(DirectStage.count, before + StageSlots.perPeerDefault + 1, "two for the greedy peer, one for the other")
        partials.forEach { $0.close() }
        partials = []
        XCTAssertEqual(DirectStage.count, before, "closing gives every slot back")
    }

    /// The share of the file's pages in the page cache (`mincore`).
    private func residentFraction(_ fd: FileDescriptor, count: Int) throws -> Double {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        guard let map = mmap(nil, count, PROT_READ, MAP_SHARED, fd.rawValue, 0), map != MAP_FAILED else {
            throw SystemError("mmap", errno: errno)
        }
        defer { munmap(map, count) }
        var vector = [UInt8](repeating: 0, count: (count + page - 1) / page)
        XCTAssertEqual(mincore(map, count, &vector), 0)
        return Double(vector.filter { $0 & 1 == 1 }.count) / Double(vector.count)
    }
}

/// File sizes seen on the writer's thread, in order.
private final class SizeLog: Sendable {
    private let sizes = Mutex<[Int64]>([])
    func append(_ size: Int64) { sizes.withLock { $0.append(size) } }
    var all: [Int64] { sizes.withLock { $0 } }
}
