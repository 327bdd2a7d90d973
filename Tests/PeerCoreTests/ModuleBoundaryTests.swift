import Foundation
import XCTest

/// Issue 43, point 3, pinned on the sources: the daemon's pure core, its
/// I/O layer and the tools keep their insides (`package`, not `public`),
/// and every event to a client passes `EventOutlet`. PeerCore's bodies
/// still inline into PeerIO's per-frame paths in release builds: its
/// target is built with package CMO (Package.swift, `packageInlining`),
/// without which a `package` PeerCore cost 20-24% of the channel message
/// rate; see docs/architecture.md, "Access".
final class ModuleBoundaryTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")

    /// Each Swift file under `folder`, with its lines.
    private func sources(_ folder: String) throws -> [(path: String, lines: [Substring])] {
        let base = root.appendingPathComponent(folder)
        let files = FileManager.default.enumerator(atPath: base.path)?.compactMap { $0 as? String }.filter { $0.hasSuffix(".swift") } ?? []
        XCTAssertFalse(files.isEmpty, "no sources under \(folder)")
        return try files.sorted().map { name in
            (folder + "/" + name, try String(contentsOf: base.appendingPathComponent(name), encoding: .utf8).split(separator: "\n", omittingEmptySubsequences: false))
        }
    }

    /// A declaration line that starts with `public` (after attributes and modifiers).
    private let publicDeclaration = try! NSRegularExpression(
        pattern: #"^\s*(?:(?:@[\w.]+(?:\([^)]*\))?|nonisolated|final|override|required|convenience|static|class|indirect|dynamic|mutating|nonmutating|lazy|unowned|weak)\s+)*public\s"#)

    func testTargetsNoProductExportsDeclareNothingPublic() throws {
        // PeerKit's users see PeerKit, PeerProtocol and PeerSystem; the rest
        // is the daemon's and the tools' own.
        for target in ["PeerCore", "PeerCrypto", "PeerIO", "PeerTools"] {
            let found = try sources(target).flatMap { file in
                file.lines.enumerated().compactMap { index, line -> String? in
                    let text = String(line)
                    let range = NSRange(text.startIndex..., in: text)
                    return publicDeclaration.firstMatch(in: text, range: range) == nil ? nil : "\(file.path):\(index + 1)"
                }
            }
            XCTAssertEqual(found, [], "\(target) declares public what no product exports: make it package")
        }
    }

    func testEveryEventToAClientPassesTheOutlet() throws {
        // Only the outlet and the control server (the one writer) encode
        // an event or broadcast one.
        let allowed: Set<String> = ["PeerIO/Daemon/EventOutlet.swift", "PeerIO/Control/ControlServer.swift"]
        var found: [String] = []
        for file in try sources("PeerIO") where !allowed.contains(file.path) {
            for (index, line) in file.lines.enumerated() where !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                if line.contains("EventLine(") || line.contains(".broadcast(") || line.contains("control.send(") {
                    found.append("\(file.path):\(index + 1)")
                }
            }
        }
        XCTAssertEqual(found, [], "events that go around EventOutlet")
    }

    func testOnlyTheCWrappersAreUncheckedSendable() throws {
        // Issue 43, point 2: everything else that crosses a thread is
        // checked by the compiler (Mutex, actors, `sending`); these two hold
        // C state, each named in docs/architecture.md with a test of why.
        var found: [String] = []
        for target in ["PeerProtocol", "PeerCore", "PeerSystem", "PeerKit", "PeerCrypto", "PeerIO", "PeerTools"] {
            for file in try sources(target) {
                for line in file.lines where line.contains("@unchecked Sendable") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    found.append(file.path)
                }
            }
        }
        XCTAssertEqual(found.sorted(), ["PeerCrypto/AEADContext.swift", "PeerCrypto/DatagramCipher.swift"])
    }

    func testTheToolsDoNotImportTheDaemonsRules() throws {
        // Issue 43, point 3: what the tools share with the daemon lives in
        // PeerProtocol; peerctl and its pure logic never link PeerCore.
        var found: [String] = []
        for target in ["PeerTools", "peerctl"] {
            for file in try sources(target) {
                for line in file.lines where line.range(of: #"^(@\w+ )?(\w+ )?import (PeerCore|PeerCrypto|PeerIO)$"#, options: .regularExpression) != nil {
                    found.append("\(file.path): \(line)")
                }
            }
        }
        XCTAssertEqual(found, [])
    }
}
