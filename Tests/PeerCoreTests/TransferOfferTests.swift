import XCTest
@testable import PeerCore
import PeerProtocol

final class TransferOfferTests: XCTestCase {
    private func file(_ name: String, _ size: Int64 = 10) -> OfferedFile {
        OfferedFile(name: Array(name.utf8), size: size, mode: 0o644, mtime: 0)
    }

    func testEachFileIsAcceptedOrRefusedWithItsReason() throws {
        let offer = [file("a/b.txt"), file("../x"), file("a/b.txt"), file("c"), file("c/d"), file("e", -1), file("f/g", 5)]
        let verdict = try XCTUnwrap(OfferCheck.check(offer))
        XCTAssertEqual(verdict.results(in: OfferList(offer)).map { result in (try? result.get().description) ?? "refused: \(result.refusalReason)" }, [
            "a/b.txt",
            "refused: dotComponent",
            "refused: duplicate",
            "c",
            "refused: underAFile",
            "refused: badSize",
            "f/g",
        ])
        XCTAssertEqual(verdict.acceptedCount, 3)
        XCTAssertEqual(verdict.acceptedBytes, 25)
        XCTAssertNil(OfferCheck.check(Array(repeating: file("x"), count: OfferCheck.maxFiles + 1)), "too many files")
        // A hostile peer's sizes: over the limit refused, totals never overflow.
        let huge = try XCTUnwrap(OfferCheck.check([file("h1", .max), file("h2", OfferCheck.maxFileSize)] +
                                                  (0..<9000).map { file("p\($0)", OfferCheck.maxFileSize) }))
        XCTAssertEqual(huge.refusals[0]?.reason, "badSize")
        XCTAssertEqual(huge.acceptedBytes, .max, "saturated, not trapped")
    }

    func testBlockRecordRoundTripsAndIgnoresDamagedSlots() throws {
        let flow = FlowID(bytes: Array(0..<16))!
        let header = BlockRecord.Header(flow: flow, file: 3, size: 1_000_000, blockSize: 131_072, bootID: [UInt8](repeating: 7, count: 16))
        var record = BlockRecord.encode(header)
        XCTAssertEqual(record.count, BlockRecord.headerLength)
        for block in [0, 1, 3] {
            let slot = BlockRecord.slot(block: block, hash: [UInt8](repeating: UInt8(block + 1), count: 32))
            let end = Int(slot.offset) + slot.bytes.count
            if record.count < end { record += [UInt8](repeating: 0, count: end - record.count) }
            record.replaceSubrange(Int(slot.offset)..<end, with: slot.bytes)
        }
        let decoded = try XCTUnwrap(BlockRecord.decode(record))
        XCTAssertEqual(decoded.header, header)
        XCTAssertEqual(decoded.hashes.keys.sorted(), [0, 1, 3], "block 2's zero slot does not count")
        var damaged = record
        damaged[BlockRecord.headerLength + BlockRecord.slotLength + 5] ^= 1
        XCTAssertEqual(BlockRecord.decode(damaged)?.hashes.keys.sorted(), [0, 3], "a flipped bit voids that slot only")
        var badHeader = record
        badHeader[30] ^= 1
        XCTAssertNil(BlockRecord.decode(badHeader), "the header's CRC")
        XCTAssertNil(BlockRecord.decode(Array(record.prefix(40))), "cut short")
    }

    /// Feature `sha256-blocks`: a record of SHA-256 slots has its own
    /// magic (the layout is otherwise the same), and one of BLAKE2b-256
    /// slots keeps the bytes every release wrote.
    func testABlockRecordsMagicNamesItsHash() throws {
        let flow = FlowID(bytes: [UInt8](repeating: 2, count: 16))!
        let boot = [UInt8](repeating: 7, count: 16)
        let blake = BlockRecord.encode(BlockRecord.Header(flow: flow, file: 1, size: 10, blockSize: 131_072, bootID: boot))
        let sha = BlockRecord.encode(BlockRecord.Header(flow: flow, file: 1, size: 10, blockSize: 131_072, bootID: boot, hash: .sha256))
        XCTAssertEqual(Array(blake.prefix(8)), Array("PEERDR1\n".utf8))
        XCTAssertEqual(Array(sha.prefix(8)), Array("PEERDR2\n".utf8))
        XCTAssertEqual(Array(blake[8...55]), Array(sha[8...55]), "the same fields after the magic")
        XCTAssertEqual(try XCTUnwrap(BlockRecord.decode(blake)).header.hash, .blake2b)
        XCTAssertEqual(try XCTUnwrap(BlockRecord.decode(sha)).header.hash, .sha256)
        var unknown = sha
        unknown[6] = UInt8(ascii: "9")
        XCTAssertNil(BlockRecord.decode(unknown), "a magic no release wrote is no record")
    }

    /// SHA-256 only when both hellos name `sha256-blocks`.
    func testTheSessionsHashTable() {
        let fast = PeerHello.ours(fastSHA256: true), slow = PeerHello.ours(fastSHA256: false)
        let rows: [(PeerHello, PeerHello?, BlockHashKind)] = [
            (fast, fast, .sha256), (fast, slow, .blake2b), (slow, fast, .blake2b), (slow, slow, .blake2b),
            (fast, nil, .blake2b), (fast, .silent, .blake2b), (fast, PeerHello(release: "0.3.0", names: ["files", "streams"]), .blake2b),
        ]
        for (ours, theirs, want) in rows {
            XCTAssertEqual(BlockHashKind.on(ours: ours, theirs: theirs), want, "\(ours.names) / \(theirs?.names ?? [])")
        }
    }

    /// Where a file resumes, as a table: (record, partial exists) → point.
    func testResumePointTable() {
        let flow = FlowID(bytes: [UInt8](repeating: 1, count: 16))!
        let boot = [UInt8](repeating: 9, count: 16)
        let expected = BlockRecord.Header(flow: flow, file: 0, size: 300_000, blockSize: 131_072, bootID: boot)   // 3 blocks
        let h = { (n: UInt8) in [UInt8](repeating: n, count: 32) }
        var otherBoot = expected
        otherBoot.bootID = [UInt8](repeating: 8, count: 16)
        var otherSize = expected
        otherSize.size = 300_001
        var otherHash = expected
        otherHash.hash = .sha256
        let rows: [(BlockRecord.Header?, [Int: [UInt8]], Bool, ResumePoint, String)] = [
            (nil, [:], true, .fresh, "no record"),
            (expected, [:], true, .fresh, "nothing verified"),
            (expected, [0: h(1), 1: h(2)], true, .from(hashes: [h(1), h(2)]), "a prefix"),
            (expected, [0: h(1), 2: h(3)], true, .from(hashes: [h(1)]), "only the leading run counts"),
            (expected, [1: h(2)], true, .fresh, "no first block"),
            (otherBoot, [0: h(1)], true, .verifyFirst(hashes: [h(1)]), "another boot: hash again"),
            (otherSize, [0: h(1)], true, .fresh, "made for another size"),
            (expected, [0: h(1), 1: h(2), 2: h(3)], true, .from(hashes: [h(1), h(2), h(3)]), "all verified, not yet renamed"),
            (expected, [0: h(1), 1: h(2), 2: h(3)], false, .complete, "renamed already"),
            (expected, [0: h(1)], false, .fresh, "the partial file is gone"),
            (otherHash, [0: h(1), 1: h(2)], true, .fresh, "slots of another hash than the session's: start over"),
            (otherHash, [0: h(1), 1: h(2), 2: h(3)], false, .complete, "renamed already, whatever the hash"),
        ]
        for (header, hashes, exists, want, why) in rows {
            let record = header.map { (header: $0, hashes: hashes) }
            XCTAssertEqual(ResumePoint.decide(expected: expected, record: record, partialExists: exists), want, why)
        }
    }
}

private extension Result where Failure == OfferRefusal {
    var refusalReason: String {
        if case .failure(let refusal) = self { return refusal.reason }
        return "-"
    }
}
