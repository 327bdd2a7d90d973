import XCTest
@testable import PeerCore

/// Issue 42, point 1: an offer's list held compactly, counted at what it
/// costs, and the budget every held list counts in, per peer and in all.
final class OfferListTests: XCTestCase {
    private func file(_ name: String, _ size: Int64 = 1, mode: UInt32 = 0o644) -> OfferedFile {
        OfferedFile(name: Array(name.utf8), size: size, mode: mode, mtime: 7)
    }

    func testPartsReadBackAsOffered() {
        var list = OfferList()
        let first = [file("a", 1), file("b/c", 2, mode: 0o755)]
        let second = [file("d", 3), file("é", .min)]
        list.append(first)
        list.append([])
        list.append(second)
        XCTAssertEqual(Array(list), first + second)
        XCTAssertEqual(list.count, 4)
        XCTAssertEqual(list.nameBytes, 1 + 3 + 1 + 2)
        XCTAssertEqual(Array(list.name(1)), Array("b/c".utf8))
        XCTAssertEqual(list.size(3), .min, "a top-bit size is kept as sent")
        XCTAssertEqual(list.mode(1), 0o755)
        XCTAssertEqual(Array(OfferList(first + second)), Array(list), "parts do not change the files")
    }

    func testCostIsNamesAndEntries() {
        let names = (0..<1000).map { file(String(repeating: "n", count: 100) + "\($0)") }
        let list = OfferList(names)
        let floor = list.nameBytes + 1000 * OfferList.entryCost
        XCTAssertGreaterThanOrEqual(list.memoryCost, floor)
        XCTAssertLessThan(list.memoryCost, floor + 4096, "two exact arrays and the parts array")
        XCTAssertEqual(OfferList.entryCost, 24, "an entry is a few fixed fields")
    }

    /// (part, the peer's held, the host's held) → verdict, with a budget of 100 a peer and 250 in all.
    func testBudgetTable() {
        let budget = OfferListBudget(perPeer: 100, host: 250)
        let rows: [(Int, Int, Int, OfferListBudget.Verdict)] = [
            (10, 0, 0, .fits),
            (10, 90, 90, .fits),                      // exactly full
            (11, 90, 90, .peerFull(limit: 100)),
            (10, 0, 241, .hostFull(limit: 250)),
            (200, 0, 0, .peerFull(limit: 100)),       // one list bigger than a share
            (50, 60, 250, .peerFull(limit: 100)),     // the peer's own share is named first
        ]
        for (index, (part, peer, host, expected)) in rows.enumerated() {
            XCTAssertEqual(budget.admit(part: part, peerHeld: peer, hostHeld: host), expected, "row \(index)")
        }
        XCTAssertGreaterThanOrEqual(OfferListBudget.perPeerDefault,
                                    OfferAssembly.maxNameBytes + OfferCheck.maxFiles * OfferList.entryCost,
                                    "one offer of the most names and files fits a peer's share")
        XCTAssertGreaterThan(OfferListBudget.hostDefault, 2 * OfferListBudget.perPeerDefault, "no one peer takes the host's")
    }
}
