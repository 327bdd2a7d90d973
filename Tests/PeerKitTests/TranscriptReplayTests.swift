import Foundation
import Glibc
import PeerProtocol
import Synchronization
import XCTest
@testable import PeerKit

/// The golden transcripts (Tests/transcripts, its README): a fake daemon
/// answers with a transcript's lines, and PeerKit must send what it says
/// and read what it answers (issue 43, point 3). The Python client
/// replays the same files (clients/python/tests/test_transcripts.py).
final class TranscriptReplayTests: XCTestCase {
    /// The lines of transcript `name`, as they are in the file.
    static func lines(_ name: String) throws -> [String] {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("transcripts")
        let text = try String(contentsOf: folder.appendingPathComponent(name + ".jsonl"), encoding: .utf8)
        return text.split(separator: "\n").map(String.init)
    }

    /// A fake daemon that plays the transcript on its first connection:
    /// each client line is checked against the request that comes, each
    /// daemon line written (an answer under the request's id). What did
    /// not match is kept in `mismatches`.
    private func replaying(_ lines: [String], mismatches: Mismatches) throws -> FakeDaemon {
        try FakeDaemon { number, connection in
            guard number == 1 else { return }
            var id: Any = NSNull()
            for line in lines.dropFirst() {
                let step = try! JSONSerialization.jsonObject(with: Data(line.utf8)) as! [String: Any]
                if let expected = step["client"] as? [String: Any] {
                    guard let sent = connection.requestObject() else { return mismatches.add("the client sent nothing for \(expected)") }
                    id = sent["id"] ?? NSNull()
                    if let problem = Self.mismatch(sent, expected) { mismatches.add(problem) }
                } else if var written = step["daemon"] as? [String: Any] {
                    written["v"] = 1
                    if written["event"] == nil { written["id"] = id }
                    connection.write(Array(try! JSONSerialization.data(withJSONObject: written)) + [10])
                }
            }
            while connection.request() != nil {}
        }
    }

    /// Why the request `sent` is not the transcript's `expected`: another
    /// method, or a param the transcript has with another value.
    static func mismatch(_ sent: [String: Any], _ expected: [String: Any]) -> String? {
        guard sent["method"] as? String == expected["method"] as? String else { return "sent \(sent), the transcript has \(expected)" }
        let params = sent["params"] as? [String: Any] ?? [:]
        for (key, value) in expected["params"] as? [String: Any] ?? [:] where !(params[key].map { jsonEqual($0, value) } ?? false) {
            return "\(expected["method"]!): params.\(key) is \(params[key] ?? "absent"), the transcript has \(value)"
        }
        return nil
    }

    func testStatusARefusalAndPeers() async throws {
        let mismatches = Mismatches()
        let daemon = try replaying(try Self.lines("status-refusal-peers"), mismatches: mismatches)
        defer { daemon.stop() }
        // Adopted, not `connect`: that asks `status` first, which the
        // transcript asks for itself.
        let client = PeerClient.adopting(try ControlClient(path: daemon.path), reconnectFor: .seconds(1))
        let status = try await client.status()
        XCTAssertEqual(status.version, "0.3.0")
        XCTAssertEqual(status.features, ["accept-name", "files", "streams", "apps", "datagrams", "once", "bulk-lane", "sha256-blocks"])
        do {
            _ = try await client.invite(try XCTUnwrap(UUID(uuidString: "5b1f0c2e-8d4a-4c3b-9a61-2f7e0d9c4b11")))
            XCTFail("the transcript refuses the invitation")
        } catch {
            guard let refusal = error as? PeerError, case .daemon(let code, let message, _) = refusal else { return XCTFail("\(error)") }
            XCTAssertEqual(code, .notFound)
            XCTAssertEqual(message, "no peer matches '5b1f0c2e-8d4a-4c3b-9a61-2f7e0d9c4b11'")
        }
        let peers = try await client.peers()
        XCTAssertTrue(peers.isEmpty, "\(peers)")
        XCTAssertEqual(mismatches.all, [])
    }

    func testSubscribeThenAPeerFoundAndLost() async throws {
        let mismatches = Mismatches()
        let daemon = try replaying(try Self.lines("subscribe-events"), mismatches: mismatches)
        defer { daemon.stop() }
        var events = PeerEvents(path: daemon.path, app: nil, since: nil, take: false, reconnectFor: .seconds(1), adopted: nil).makeAsyncIterator()
        guard case .peerFound(let found)? = try await events.next()?.update else { return XCTFail("no peerFound") }
        XCTAssertEqual(found.name, "bravo")
        XCTAssertEqual(found.endpoints.first?.address, "169.254.1.2")
        guard case .peerLost(let lost)? = try await events.next()?.update else { return XCTFail("no peerLost") }
        XCTAssertTrue(lost.lost)
        XCTAssertEqual(mismatches.all, [])
    }
}

/// What the fake daemon found the client sent that the transcript does not have.
final class Mismatches: Sendable {
    private let list = Mutex<[String]>([])
    func add(_ problem: String) { list.withLock { $0.append(problem) } }
    var all: [String] { list.withLock { $0 } }
}

/// Whether two values read from JSON are the same JSON.
func jsonEqual(_ a: Any, _ b: Any) -> Bool {
    let encode = { (value: Any) in try? JSONSerialization.data(withJSONObject: ["v": value], options: .sortedKeys) }
    return encode(a) == encode(b)
}
