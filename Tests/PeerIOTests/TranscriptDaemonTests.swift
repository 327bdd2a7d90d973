import Foundation
import Glibc
import PeerCore
import PeerSystem
import XCTest
@testable import PeerIO

/// The golden transcripts (Tests/transcripts) are what a real daemon says:
/// their client lines go to a daemon of the unit tier's loopback lab, and
/// each answer must be the transcript's, but for the fields it names
/// volatile (issue 43, point 3). The clients replay the same files.
@MainActor
final class TranscriptDaemonTests: LoopbackLabTestCase {
    func testEveryTranscriptIsWhatTheDaemonAnswers() async throws {
        let folder = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("transcripts")
        let names = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".jsonl") }.sorted()
        XCTAssertFalse(names.isEmpty, "no transcripts in \(folder.path)")
        for name in names {
            let host = try lab.start("golden")
            let lines = try String(contentsOf: folder.appendingPathComponent(name), encoding: .utf8).split(separator: "\n").map(String.init)
            let head = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
            let volatile = Set(head["volatile"] as? [String] ?? [])
            var requests: [String] = [], expected: [[String: Any]] = []
            for line in lines.dropFirst() {
                let step = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                if var client = step["client"] as? [String: Any] {
                    client["v"] = 1
                    client["id"] = requests.count + 1
                    requests.append(String(decoding: try JSONSerialization.data(withJSONObject: client), as: UTF8.self))
                } else if let daemon = step["daemon"] as? [String: Any], daemon["event"] == nil {
                    expected.append(daemon)
                }
            }
            let (path, sending) = (host.socket, requests)
            let answers = try await Task.detached { try TranscriptDaemonTests.exchange(path, sending) }.value
            XCTAssertEqual(answers.count, expected.count, name)
            for (index, (answer, want)) in zip(answers, expected).enumerated() {
                let got = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(answer.utf8)) as? [String: Any], answer)
                XCTAssertEqual(got["id"] as? Int, index + 1, "\(name): the answer's id")
                for problem in Self.differences(got, want, volatile: volatile) { XCTFail("\(name), answer \(index + 1): \(problem)") }
            }
        }
    }

    /// What differs between a daemon's answer and the transcript's: the
    /// kind (result or error), an error's code and words, a result's
    /// fields and their values, but the volatile ones.
    static func differences(_ got: [String: Any], _ want: [String: Any], volatile: Set<String>) -> [String] {
        if let wanted = want["error"] as? [String: Any] {
            guard let error = got["error"] as? [String: Any] else { return ["the transcript has an error, the daemon answered \(got)"] }
            return ["code", "message"].compactMap { key in
                Self.jsonEqual(error[key] ?? NSNull(), wanted[key] ?? NSNull()) ? nil : "error.\(key) is \(error[key] ?? "absent"), the transcript has \(wanted[key] ?? "absent")"
            }
        }
        guard let wanted = want["result"] as? [String: Any], let result = got["result"] as? [String: Any] else {
            return ["the transcript has a result, the daemon answered \(got)"]
        }
        var problems: [String] = []
        // A volatile field may also come and go (`avahiMessage`, say).
        let (gotKeys, wantedKeys) = (Set(result.keys).subtracting(volatile), Set(wanted.keys).subtracting(volatile))
        if gotKeys != wantedKeys {
            problems.append("result fields \(gotKeys.sorted()), the transcript has \(wantedKeys.sorted())")
        }
        for (key, value) in wanted where !volatile.contains(key) && !(result[key].map { jsonEqual($0, value) } ?? false) {
            problems.append("result.\(key) is \(result[key] ?? "absent"), the transcript has \(value)")
        }
        return problems
    }

    /// Whether two values read from JSON are the same JSON.
    static func jsonEqual(_ a: Any, _ b: Any) -> Bool {
        let encode = { (value: Any) in try? JSONSerialization.data(withJSONObject: ["v": value], options: .sortedKeys) }
        return encode(a) == encode(b)
    }

    /// Sends each request line to the daemon at `path` and reads one
    /// answer line for each, on a connection of its own.
    nonisolated static func exchange(_ path: String, _ requests: [String]) throws -> [String] {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(fd) }
        let address = try SocketAddress.unix(path)
        try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
            try Syscall.call("connect", path) { connect(fd, pointer, length) }
        }
        var answers: [String] = [], pending: [UInt8] = []
        for request in requests {
            let bytes = Array(request.utf8) + [10]
            guard write(fd, bytes, bytes.count) == bytes.count else { throw SystemError("write", errno: errno) }
            while !pending.contains(10) {
                var buffer = [UInt8](repeating: 0, count: 65536)
                let count = read(fd, &buffer, buffer.count)
                guard count > 0 else { return answers }
                pending += buffer[0..<count]
            }
            let newline = pending.firstIndex(of: 10)!
            answers.append(String(decoding: pending[..<newline], as: UTF8.self))
            pending.removeSubrange(...newline)
        }
        return answers
    }
}
