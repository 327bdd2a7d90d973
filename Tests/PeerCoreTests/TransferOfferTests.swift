import XCTest
@testable import PeerCore

final class TransferOfferTests: XCTestCase {
    private func file(_ name: String, _ size: Int64 = 10) -> OfferedFile {
        OfferedFile(name: Array(name.utf8), size: size, mode: 0o644, mtime: 0)
    }

    func testEachFileIsAcceptedOrRefusedWithItsReason() throws {
        let offer = [file("a/b.txt"), file("../x"), file("a/b.txt"), file("c"), file("c/d"), file("e", -1), file("f/g", 5)]
        let verdict = try XCTUnwrap(OfferCheck.check(offer))
        XCTAssertEqual(verdict.files.map { result in (try? result.get().description) ?? "refused: \(result.refusalReason)" }, [
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
    }

    func testVerifiedBlocksRecordRoundTripsAndRefusesDamage() throws {
        let plan = BlockPlan(fileSize: 1_000_000)   // 8 blocks of 128 KiB
        var blocks = VerifiedBlocks(plan: plan)
        for index in [0, 2, 7, 2] { blocks.insert(index) }
        XCTAssertEqual(blocks.count, 3)
        XCTAssertEqual(blocks.missing, [1, 3, 4, 5, 6])
        let record = blocks.encode()
        XCTAssertEqual(record.count, 8 + 12 + 1 + 4)
        XCTAssertEqual(record[20], 0b1010_0001, "blocks 0, 2 and 7")
        XCTAssertEqual(VerifiedBlocks.decode(record, plan: plan), blocks)
        var damaged = record
        damaged[20] ^= 0x40
        XCTAssertNil(VerifiedBlocks.decode(damaged, plan: plan), "the CRC catches a flipped bit")
        XCTAssertNil(VerifiedBlocks.decode(record, plan: BlockPlan(fileSize: 1_000_001)), "another file size")
        XCTAssertNil(VerifiedBlocks.decode(Array(record.dropLast()), plan: plan), "cut short")
        for index in 0..<plan.count { blocks.insert(index) }
        XCTAssertTrue(blocks.isComplete)
    }
}

private extension Result where Failure == OfferRefusal {
    var refusalReason: String {
        if case .failure(let refusal) = self { return refusal.reason }
        return "-"
    }
}
