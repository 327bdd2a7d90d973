import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// The worked transfer of docs/protocol.md §8, recomputed: if the code and
/// the document ever disagree, this fails.
final class TransferExampleTests: XCTestCase {
    override func setUp() { try? Sodium.initialize() }

    func testWorkedTransfer() throws {
        let flow = FlowID(bytes: Array(1...16))!
        let content = Array("hello".utf8)
        let blockHash = Blake2b.hash(content)
        let fileHash = Blake2b.hash(blockHash)
        let messages: [(String, BulkMessage)] = [
            ("offer", .offer(flow, more: false, totalFiles: 1, totalBytes: 5,
                             files: [OfferedFile(name: Array("hi.txt".utf8), size: 5, mode: 0o644, mtime: 1_764_460_800)])),
            ("answer", .answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)])),
            ("chunk", .chunk(flow, file: 0, offset: 0, bytes: content)),
            ("block", .block(flow, file: 0, block: 0, hash: blockHash)),
            ("fileEnd", .fileEnd(flow, file: 0, hash: fileHash)),
            ("transferDone", .transferDone(flow)),
            ("credit", .credit(flow, bytes: 131_072)),
            ("streamOpen", .streamOpen(flow, name: "backup")),
            ("streamData", .streamData(flow, bytes: content)),
            ("streamEnd", .streamEnd(flow)),
            ("cancel", .cancel(flow, reason: .cancelled, text: "stop")),
        ]
        let document = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/protocol.md"), encoding: .utf8)
        let flat = document.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\n", with: "")
        var lines = ["block hash \(Hex.encode(blockHash))", "file hash \(Hex.encode(fileHash))"]
        for (name, message) in messages {
            let bytes = WireCodec.encode(.bulk(message))
            XCTAssertEqual(try WireCodec.decode(bytes), .bulk(message))
            lines.append("\(name) \(Hex.encode(bytes))")
        }
        for line in lines {
            let value = String(line.split(separator: " ").last!)
            XCTAssertTrue(flat.contains(value), "docs/protocol.md lacks \(line)")
        }
        print(lines.joined(separator: "\n"))
    }
}
