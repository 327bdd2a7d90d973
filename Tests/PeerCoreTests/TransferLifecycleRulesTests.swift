import XCTest
@testable import PeerCore
import PeerProtocol

/// Issue 21, point 8: the transfer lifecycle's decisions as pure types,
/// tested as tables: offer assembly, the resume decision with its manifest
/// binding, and messages for unknown flows.
final class TransferLifecycleRulesTests: XCTestCase {
    private func file(_ name: String, _ size: Int64) -> OfferedFile {
        OfferedFile(name: Array(name.utf8), size: size, mode: 0o644, mtime: 0)
    }

    func testOfferAssemblyTable() {
        // (parts as (files, more), totals declared by the first part, outcome of the last part)
        let rows: [([([OfferedFile], Bool)], UInt32, UInt64, OfferAssembly.Outcome)] = [
            ([([file("a", 1), file("b", 2)], false)], 2, 3, .complete),
            ([([file("a", 1)], true), ([file("b", 2)], false)], 2, 3, .complete),
            ([([file("a", 1)], true)], 2, 3, .needMore),
            ([([], false)], 0, 0, .complete),                                            // an empty offer is valid
            ([([file("a", 1)], false)], 2, 1, .refused("an offer whose files do not add up to its totals")),
            ([([file("a", 1)], false)], 1, 5, .refused("an offer whose files do not add up to its totals")),
            ([([file("a", 1), file("b", 1)], true)], 1, 2, .refused("an offer of more than 1 files")),
            ([([file("a", .max), file("b", .max)], false)], 2, .max, .refused("an offer whose files do not add up to its totals")),  // 2^64 − 2
            ([([file("a", 1)], false), ([file("b", 1)], false)], 1, 1, .refused("an offer part after the last one")),
            // Issue 42, point 5: sizes add up as unsigned 64-bit numbers; a
            // top-bit size is the file's verdict 4, not the offer's end.
            ([([file("a", 10), file("b", .min)], false)], 2, (1 << 63) + 10, .complete),
            ([([file("a", 10), file("b", -11)], false)], 2, .max, .complete),
            ([([file("a", .min), file("b", .min)], false)], 2, 0, .refused("an offer whose sizes overflow")),
        ]
        for (index, (parts, totalFiles, totalBytes, expected)) in rows.enumerated() {
            var assembly = OfferAssembly()
            var outcome = OfferAssembly.Outcome.needMore
            for (files, more) in parts { outcome = assembly.add(files, more: more, totalFiles: totalFiles, totalBytes: totalBytes) }
            XCTAssertEqual(outcome, expected, "row \(index)")
            XCTAssertEqual(assembly.isComplete, expected == .complete || (index == 8), "row \(index)")
        }
        var big = OfferAssembly()
        let name = String(repeating: "n", count: 4096)
        let part = (0..<2049).map { _ in file(name, 0) }
        XCTAssertEqual(big.add(part, more: true, totalFiles: 100_000, totalBytes: 0), .needMore)
        XCTAssertEqual(big.listCost, big.files.memoryCost, "what the list holds")
        XCTAssertGreaterThanOrEqual(big.listCost, 2049 * (4096 + OfferList.entryCost), "names and an entry a file at least")
        XCTAssertLessThan(big.listCost, 2049 * (4096 + OfferList.entryCost) + 32768, "and little more: a part of 15 names (16 bits of names), two arrays each")
        XCTAssertEqual(big.add(part, more: true, totalFiles: 100_000, totalBytes: 0),
                       .refused("an offer whose names pass \(OfferAssembly.maxNameBytes) bytes"))
    }

    func testResumeDecisionTable() {
        let record = AcceptanceRecord(peerID: "p1", manifest: "m1", files: [0, 2])
        // (manifest, peer, held, record, decision)
        let rows: [(String, String, ResumeDecision.Held?, AcceptanceRecord?, ResumeDecision)] = [
            ("m1", "p1", nil, nil, .decideAfresh(replacing: false)),
            ("m1", "p1", nil, record, .resumeRecorded(files: [0, 2], replacing: false)),
            ("m2", "p1", nil, record, .decideAfresh(replacing: false)),       // other files under the id: asked afresh
            ("m1", "p2", nil, record, .decideAfresh(replacing: false)),       // another peer's id
            ("m1", "p1", .init(manifest: "m1", state: .interrupted), nil, .reanswer),
            ("m1", "p1", .init(manifest: "m1", state: .active), nil, .reanswer),
            ("m1", "p1", .init(manifest: "m1", state: .offered), nil, .ignore),
            ("m1", "p1", .init(manifest: "m1", state: .completed), nil, .ignore),
            ("m2", "p1", .init(manifest: "m1", state: .interrupted), nil, .decideAfresh(replacing: true)),
            ("m2", "p1", .init(manifest: "m1", state: .active), record, .decideAfresh(replacing: true)),
            // Other files took the id for a while (not accepted); the accepted ones come back: a resume, not a question.
            ("m1", "p1", .init(manifest: "m2", state: .offered), record, .resumeRecorded(files: [0, 2], replacing: true)),
        ]
        for (index, (manifest, peer, held, record, expected)) in rows.enumerated() {
            XCTAssertEqual(ResumeDecision.decide(manifest: manifest, peerID: peer, held: held, record: record), expected, "row \(index)")
        }
    }

    func testStrayFlowTable() {
        let flow = FlowID(bytes: Array(0..<16))!
        let rows: [(BulkMessage, StrayFlowRule)] = [
            (.offer(flow, more: false, totalFiles: 0, totalBytes: 0, files: []), .newFlow),
            (.answer(flow, more: false, files: []), .cancel),
            (.chunk(flow, file: 0, offset: 0, bytes: [1]), .cancel),
            (.block(flow, file: 0, block: 0, hash: [UInt8](repeating: 0, count: 32)), .cancel),
            (.fileEnd(flow, file: 0, hash: [UInt8](repeating: 0, count: 32)), .cancel),
            (.credit(flow, bytes: 1), .ignore),
            (.transferDone(flow), .ignore),
            (.cancel(flow, reason: .cancelled, text: ""), .ignore),
            (.streamOpen(flow, name: "x"), .ignore),
            (.streamData(flow, bytes: [1]), .ignore),
            (.streamEnd(flow), .ignore),
            (.streamReset(flow, reason: .closed, text: ""), .ignore),
        ]
        for (message, rule) in rows { XCTAssertEqual(StrayFlowRule.of(message), rule, "\(message)") }
        XCTAssertEqual(StrayFlowRule.chunk, .cancel, "file bytes read in place follow the chunk's rule")
    }
}
