import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
@testable import PeerSystem
import PeerProtocol

/// The receiving side's files on a real file system: partial files and
/// their records, the rename that never overwrites, and folders that are
/// never reached through a symlink.
final class PartialFileTests: XCTestCase {
    private var root: String!
    private let flow = FlowID(bytes: Array(1...16))!

    override func setUp() {
        try? Sodium.initialize()
        root = NSTemporaryDirectory() + "peerd-partial-\(UUID().uuidString)"
    }

    override func tearDown() { try? FileManager.default.removeItem(atPath: root) }

    private func header(size: Int64) -> BlockRecord.Header {
        BlockRecord.Header(flow: flow, file: 0, size: size, blockSize: BlockPlan(fileSize: size).blockSize, bootID: [UInt8](repeating: 3, count: 16))
    }

    func testVerifiedBlocksSurviveAReopenAndTheRenameNeverOverwrites() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let path = try TransferPath.check("docs/a.txt").get()
        let size: Int64 = 300_000   // 3 blocks of 131,072
        let block0 = [UInt8](repeating: 0xA0, count: 131_072), block1 = [UInt8](repeating: 0xA1, count: 131_072)
        do {
            let partial = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true), flow: flow, index: 0)
            defer { partial.close() }
            XCTAssertEqual(partial.resumePoint(expected: header(size: size)), .fresh)
            try partial.open(header: header(size: size), keptBlocks: 0)
            try partial.write(block0, at: 0)
            try partial.recordBlock(0, hash: Blake2b.hash(block0))
            try partial.write(block1, at: 131_072)
            try partial.recordBlock(1, hash: Blake2b.hash(block1))
            try partial.write([1, 2, 3], at: 262_144)   // part of block 2: not recorded
        }
        let again = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: false), flow: flow, index: 0)
        defer { again.close() }
        XCTAssertEqual(again.resumePoint(expected: header(size: size)), .from(hashes: [Blake2b.hash(block0), Blake2b.hash(block1)]))
        XCTAssertEqual(again.partialSize(), 262_147, "how far bytes had come, verified or not")
        var otherBoot = header(size: size)
        otherBoot.bootID = [UInt8](repeating: 4, count: 16)
        XCTAssertEqual(again.resumePoint(expected: otherBoot), .from(hashes: [Blake2b.hash(block0), Blake2b.hash(block1)]),
                       "after a reboot the blocks are hashed again, and these still match")
        try again.open(header: header(size: size), keptBlocks: 2)
        let block2 = [UInt8](repeating: 0xA2, count: 37_856)
        try again.write(block2, at: 262_144)
        try again.recordBlock(2, hash: Blake2b.hash(block2))
        XCTAssertTrue(FileManager.default.createFile(atPath: root + "/host1/docs/a.txt", contents: Data("mine".utf8)))
        // Set-uid, group- and world-writable as sent: masked (issue 21, point 1.7).
        let name = try again.finish(name: "a.txt", size: size, mode: 0o4767, mtime: 1_764_460_800)
        XCTAssertEqual(name, "a (1).txt")
        XCTAssertEqual(try String(contentsOfFile: root + "/host1/docs/a.txt", encoding: .utf8), "mine", "never overwritten")
        let attributes = try FileManager.default.attributesOfItem(atPath: root + "/host1/docs/a (1).txt")
        XCTAssertEqual((attributes[.size] as? NSNumber)?.int64Value, size)
        XCTAssertEqual((attributes[.posixPermissions] as? NSNumber)?.intValue, 0o745, "never writable by others, never set-id")
        XCTAssertEqual((attributes[.modificationDate] as? Date)?.timeIntervalSince1970, 1_764_460_800)
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/host1/docs/" + again.partName))
        XCTAssertEqual(again.resumePoint(expected: header(size: size)), .complete, "in place: a repeated offer sends nothing more")
    }

    /// Feature `sha256-blocks`: after another boot, a record of SHA-256
    /// slots is checked against the disk with SHA-256 (with BLAKE2b every
    /// block would be received again).
    func testAfterARebootASha256RecordIsCheckedWithSha256() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let path = try TransferPath.check("sha.bin").get()
        let size: Int64 = 300_000
        var head = header(size: size)
        head.hash = .sha256
        let block0 = [UInt8](repeating: 0xB0, count: 131_072), block1 = [UInt8](repeating: 0xB1, count: 131_072)
        do {
            let partial = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true), flow: flow, index: 0,
                                      hash: .sha256)
            defer { partial.close() }
            try partial.open(header: head, keptBlocks: 0)
            try partial.write(block0, at: 0)
            try partial.recordBlock(0, hash: BlockHashKind.sha256.hash(block0))
            try partial.write(block1, at: 131_072)
            try partial.recordBlock(1, hash: BlockHashKind.sha256.hash(block1))
        }
        var otherBoot = head
        otherBoot.bootID = [UInt8](repeating: 4, count: 16)
        let again = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: false), flow: flow, index: 0)
        defer { again.close() }
        XCTAssertEqual(again.resumePoint(expected: otherBoot), .from(hashes: [BlockHashKind.sha256.hash(block0), BlockHashKind.sha256.hash(block1)]),
                       "the blocks on disk hash, with SHA-256, to what was recorded")
        var blake = otherBoot
        blake.hash = .blake2b
        XCTAssertEqual(again.resumePoint(expected: blake), .fresh, "a session of the other hash starts the file over")
    }

    /// Issue 44: the writer takes every chunk waiting in one job
    /// (``PendingWrites``): many small writes queued at once land in place
    /// and report back one by one, in the order queued, for a lane's file
    /// (not hashed here) as for one hashed here.
    @MainActor
    func testManyWritesQueuedAtOnceLandAndReportInOrder() async throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        for hashes in [false, true] {
            let path = try TransferPath.check("many-\(hashes).bin").get()
            let partial = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true),
                                      flow: flow, index: hashes ? 1 : 0, hashesBytes: hashes)
            defer { partial.close() }
            try partial.open(header: header(size: 200 * 1_000), keptBlocks: 0)
            var reported: [Int] = []
            for index in 0..<200 {
                [UInt8](repeating: UInt8(index), count: 1_000).withUnsafeBytes { bytes in
                    partial.writeLater(bytes, at: Int64(index * 1_000)) { failure in
                        XCTAssertNil(failure)
                        reported.append(index)
                    }
                }
            }
            let all = try await eventually { reported.count == 200 }
            XCTAssertTrue(all, "\(reported.count) of 200 reported")
            XCTAssertEqual(reported, Array(0..<200), "in the order queued")
            PartialFile.settle()
            let written = try Data(contentsOf: URL(fileURLWithPath: root + "/host1/" + partial.partName))
            XCTAssertEqual(written.count, 200_000)
            XCTAssertEqual(Array(written), (0..<200).flatMap { [UInt8](repeating: UInt8($0), count: 1_000) })
        }
    }

    /// The writer thread (issue 25): bytes written and hashed off the main
    /// actor, in order; a matching block is recorded after its bytes, a
    /// block that does not match is reported and its file never lands.
    @MainActor
    func testTheWriterRecordsGoodBlocksAndAFileWithABadOneNeverLands() async throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let path = try TransferPath.check("w.bin").get()
        let size: Int64 = 262_144   // 2 blocks of 131,072
        let good = [UInt8](repeating: 0xB0, count: 131_072), other = [UInt8](repeating: 0xB1, count: 131_072)
        let partial = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true), flow: flow, index: 0)
        defer { partial.close() }
        try partial.open(header: header(size: size), keptBlocks: 0)
        let checks = AsyncStream<String>.makeStream()
        // Two writes per block, each hashed where it is written.
        good[..<65_536].withUnsafeBytes { partial.writeLater($0, at: 0) { XCTAssertNil($0) } }
        good[65_536...].withUnsafeBytes { partial.writeLater($0, at: 65_536) { XCTAssertNil($0) } }
        partial.verifyBlockLater(0, hash: Blake2b.hash(good)) { checks.continuation.yield("\($0)") }
        other.withUnsafeBytes { partial.writeLater($0, at: 131_072) { XCTAssertNil($0) } }
        partial.verifyBlockLater(1, hash: Blake2b.hash(good)) { checks.continuation.yield("\($0)") }
        var iterator = checks.stream.makeAsyncIterator()
        let first = await iterator.next(), second = await iterator.next()
        XCTAssertEqual(first, "recorded")
        XCTAssertEqual(second, "mismatch")
        // The first block is on record (a resume would keep it); the file never lands.
        XCTAssertEqual(partial.resumePoint(expected: header(size: size)), .from(hashes: [Blake2b.hash(good)]))
        XCTAssertThrowsError(try partial.finish(name: "w.bin", size: size, mode: 0o644, mtime: 0)) {
            XCTAssertEqual(($0 as? SystemError)?.errno, EBADMSG)
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/host1/w.bin"))
    }

    func testAFolderIsNeverReachedThroughASymlink() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        try FileManager.default.createDirectory(atPath: root + "/host1", withIntermediateDirectories: true)
        let outside = root + "-outside"
        try FileManager.default.createDirectory(atPath: outside, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: outside) }
        XCTAssertEqual(symlink(outside, root + "/host1/sub"), 0)
        XCTAssertThrowsError(try DownloadFolder.folder(of: try TransferPath.check("sub/x.txt").get(), peerFolder: "host1", root: rootFD, create: true)) { error in
            XCTAssertEqual((error as? SystemError)?.syscall, "openat")
        }
        XCTAssertEqual(try FileManager.default.contentsOfDirectory(atPath: outside), [], "nothing written through the link")
    }

    func testPeerFolderNames() {
        XCTAssertEqual(DownloadFolder.peerFolderName(name: "host1", peerID: "ab"), "host1")
        XCTAssertEqual(DownloadFolder.peerFolderName(name: "../x", peerID: "ab"), "ab")
        XCTAssertEqual(DownloadFolder.peerFolderName(name: ".hidden", peerID: "ab"), "ab")
        XCTAssertEqual(DownloadFolder.peerFolderName(name: "a/b", peerID: "ab"), "ab")
    }
}

private extension PartialFile {
    /// The daemon writes from its read buffer; the tests from arrays.
    func write(_ bytes: [UInt8], at offset: Int64) throws {
        try bytes.withUnsafeBytes { raw in try write(raw, at: offset) }
    }
}

extension PartialFileTests {
    /// A batch of files placed at once (``PartialFile/finishAll(_:)``):
    /// each lands under its name, in order, two with one name land beside
    /// each other, and one whose block did not match fails alone.
    func testABatchPlacesEachFileAndAFailureStaysItsOwn() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        var steps: [PartialFile.Finishing] = []
        for (index, name) in ["x.txt", "x.txt", "bad.txt", "y.txt"].enumerated() {
            let path = try TransferPath.check(name).get()
            var head = header(size: 3)
            head.file = UInt32(index)
            let partial = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true), flow: flow, index: index)
            try partial.open(header: head, keptBlocks: 0)
            try partial.write(Array("ab\(index)".utf8), at: 0)
            if name == "bad.txt" { partial.markFailedVerification() }
            steps.append(PartialFile.Finishing(partial: partial, name: name, size: 3, mode: 0o644, mtime: 1_764_460_800))
        }
        defer { for step in steps { step.partial.close() } }
        let outcomes = PartialFile.finishAll(steps).map { try? $0.get() }
        XCTAssertEqual(outcomes, ["x.txt", "x (1).txt", nil, "y.txt"])
        XCTAssertEqual(try String(contentsOfFile: root + "/host1/x (1).txt", encoding: .utf8), "ab1")
        XCTAssertEqual(try String(contentsOfFile: root + "/host1/y.txt", encoding: .utf8), "ab3")
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/host1/bad.txt"), "a file whose block did not match never lands")
    }

    /// Issue 44, point 2: a file received on a lane is not hashed again;
    /// the sender's block hash is recorded as it came, and checked against
    /// the disk when a resume after a reboot hashes the blocks again. A
    /// file that is hashed still fails a block that does not match.
    @MainActor
    func testALanesFileRecordsTheSendersHashAndAResumeAfterARebootChecksIt() async throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let size: Int64 = 131_072 * 2
        let good = [UInt8](repeating: 0x5A, count: 131_072)
        for (hashes, name) in [(false, "lane.bin"), (true, "session.bin")] {
            let path = try TransferPath.check(name).get()
            let partial = PartialFile(folder: try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true), flow: flow,
                                      index: hashes ? 1 : 0, hashesBytes: hashes)
            defer { partial.close() }
            var head = header(size: size)
            head.file = hashes ? 1 : 0
            try partial.open(header: head, keptBlocks: 0)
            let wrong = [UInt8](repeating: 0, count: 32)
            let checks = CheckLog()
            let done = expectation(description: name)
            done.expectedFulfillmentCount = 2
            good.withUnsafeBytes { partial.writeLater($0, at: 0) { failure in XCTAssertNil(failure) } }
            partial.verifyBlockLater(0, hash: Blake2b.hash(good)) { check in
                if case .recorded = check { checks.list.append("recorded") } else { checks.list.append("other") }
                done.fulfill()
            }
            good.withUnsafeBytes { partial.writeLater($0, at: 131_072) { failure in XCTAssertNil(failure) } }
            partial.verifyBlockLater(1, hash: wrong) { check in
                switch check {
                case .recorded: checks.list.append("recorded")
                case .mismatch: checks.list.append("mismatch")
                case .failed: checks.list.append("failed")
                }
                done.fulfill()
            }
            await fulfillment(of: [done], timeout: 5)
            XCTAssertEqual(checks.list, hashes ? ["recorded", "mismatch"] : ["recorded", "recorded"], name)
            guard !hashes else { continue }
            // After a reboot the blocks on disk are hashed again: the one
            // recorded under a hash its bytes do not have is received again.
            var otherBoot = head
            otherBoot.bootID = [UInt8](repeating: 9, count: 16)
            XCTAssertEqual(partial.resumePoint(expected: otherBoot), .from(hashes: [Blake2b.hash(good)]))
        }
    }
}

/// What the block checks said, in order, on the main actor.
@MainActor
private final class CheckLog {
    var list: [String] = []
}

extension PartialFileTests {
    /// Issue 44, the folder: a file of one block has no block record. Its
    /// hash is marked in the transfer's ``PlacedLog`` in the state
    /// directory once its bytes are flushed and before it is renamed, so a
    /// resume finds it in place, or, flushed and not yet renamed, renames it.
    func testASmallFileIsMarkedInPlaceWithoutABlockRecord() throws {
        let rootFD = try DownloadFolder.openRoot(root)
        defer { rootFD.close() }
        let log = PlacedLog(folder: root + "/transfers", header: .init(flow: flow, bootID: [UInt8](repeating: 3, count: 16), hash: .blake2b))
        let path = try TransferPath.check("small.txt").get()
        let folder = { try DownloadFolder.folder(of: path, peerFolder: "host1", root: rootFD, create: true) }
        let bytes = Array("small".utf8)
        var steps: [PartialFile.Finishing] = []
        for index in 0..<2 {
            var head = header(size: 5)
            head.file = UInt32(index)
            let partial = PartialFile(folder: try folder(), flow: flow, index: index, placed: log)
            try partial.open(header: head, keptBlocks: 0)
            try partial.write(bytes, at: 0)
            try partial.recordBlock(0, hash: Blake2b.hash(bytes))
            steps.append(PartialFile.Finishing(partial: partial, name: "small.txt", size: 5, mode: 0o644, mtime: 1_764_460_800))
        }
        XCTAssertFalse(FileManager.default.fileExists(atPath: root + "/host1/" + PartialFile.names(flow: flow, index: 0).record),
                       "no block record of its own")
        // File 0 lands; file 1 is only marked, as if peerd stopped before its rename.
        XCTAssertEqual(try PartialFile.finishAll([steps[0]]).map { try $0.get() }, ["small.txt"])
        try log.mark([(file: 1, hash: Blake2b.hash(bytes))])
        for step in steps { step.partial.close() }
        XCTAssertNotNil(log.read(files: 2)?.hashes[0])

        func point(_ index: Int) throws -> ResumePoint {
            var head = header(size: 5)
            head.file = UInt32(index)
            let again = PartialFile(folder: try folder(), flow: flow, index: index, placed: log)
            defer { again.close() }
            return again.resumePoint(expected: head)
        }
        XCTAssertEqual(try point(0), .complete, "in place: nothing to send")
        XCTAssertEqual(try point(1), .from(hashes: [Blake2b.hash(bytes)]), "flushed, not renamed: the rename runs again")
        XCTAssertEqual(try point(2), .fresh)
        // The resume of file 1 kept its block: no block hash comes again,
        // and its rename still finds its hash for the slot.
        let resumed = PartialFile(folder: try folder(), flow: flow, index: 1, placed: log)
        var head1 = header(size: 5)
        head1.file = 1
        try resumed.open(header: head1, keptBlocks: 1, kept: [Blake2b.hash(bytes)])
        XCTAssertEqual(try PartialFile.finishAll([PartialFile.Finishing(partial: resumed, name: "small.txt", size: 5, mode: 0o644, mtime: 1_764_460_800)])
                        .map { try $0.get() }, ["small (1).txt"])
        resumed.close()
        XCTAssertEqual(try point(1), .complete)
        log.remove()
        XCTAssertEqual(try point(0), .fresh, "the record goes with the transfer")
    }
}
