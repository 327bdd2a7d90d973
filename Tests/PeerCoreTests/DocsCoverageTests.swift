import Foundation
import XCTest
@testable import PeerCore
import PeerProtocol

/// Someone with only docs/ must be able to interoperate: every control
/// method, error code, event type and wire close reason is documented.
final class DocsCoverageTests: XCTestCase {
    private func doc(_ name: String) throws -> String {
        let path = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../docs/\(name)").path
        return try String(contentsOfFile: path, encoding: .utf8)
    }

    func testEveryControlMethodErrorAndEventIsInTheControlProtocol() throws {
        let text = try doc("control-protocol.md")
        for method in ControlMethod.allCases {
            XCTAssertTrue(text.contains("`\(method.rawValue)`"), "method \(method.rawValue)")
        }
        for code in ControlErrorCode.allCases { XCTAssertTrue(text.contains("| `\(code.rawValue)`"), "error code \(code.rawValue)") }
        for kind in ["peerFound", "peerUpdated", "peerLost", "peerRemoved", "stateChanged", "inviteFailed", "invitation", "delivered",
                     "message", "stored", "identityMismatch", "pairingRequest", "pairingCode", "paired", "pairingFailed", "unpaired", "error",
                     "transferOffered", "transferProgress", "transferCompleted", "transferFailed"] {
            XCTAssertNotNil(EventKind(rawValue: kind))
            XCTAssertTrue(text.contains("| `\(kind)`"), "event \(kind)")
        }
        for reason in CloseReason.allCases where reason != .duplicate {
            XCTAssertTrue(text.contains("`\(reason.rawValue)`"), "reason \(reason.rawValue)")
        }
        for state in TransferState.allCases { XCTAssertTrue(text.contains("`\(state.rawValue)`"), "transfer state \(state.rawValue)") }
        for reason in FlowEndReason.allCases where reason != .closed && reason != .unknownName {
            XCTAssertTrue(text.contains("`\(reason.rawValue)`"), "transfer reason \(reason.rawValue)")
        }
        for refusal in TransferPathRefusal.allCases { XCTAssertTrue(text.contains("`\(refusal.rawValue)`"), "refusal \(refusal.rawValue)") }
    }

    func testEveryCloseReasonHasItsWireCodeInTheProtocol() throws {
        let text = try doc("protocol.md")
        for reason in CloseReason.allCases {
            XCTAssertTrue(text.contains("| \(reason.code) | \(reason.rawValue) |"), "close reason \(reason.rawValue) = \(reason.code)")
        }
        for reason in FlowEndReason.allCases {
            XCTAssertTrue(text.contains("| \(reason.code) | `\(reason.rawValue)` |"), "flow end reason \(reason.rawValue) = \(reason.code)")
        }
        for type in BulkCodec.firstType...BulkCodec.lastType {
            XCTAssertTrue(text.contains("| 0x\(String(type, radix: 16, uppercase: true)) |"), "bulk type 0x\(String(type, radix: 16))")
        }
    }
}

/// The shell reads the time only through ``DaemonClock``: no component
/// calls `Date()` itself, so one clock can drive the whole daemon.
final class OneClockTests: XCTestCase {
    func testNoBareDateInTheShell() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("../../Sources")
        var offenders: [String] = []
        for target in ["PeerIO", "PeerSystem"] {
            let base = root.appendingPathComponent(target)
            guard let files = FileManager.default.enumerator(atPath: base.path) else { return XCTFail("no \(target)") }
            for case let file as String in files where file.hasSuffix(".swift") {
                let text = try String(contentsOfFile: base.appendingPathComponent(file).path, encoding: .utf8)
                for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated()
                where line.contains("Date()") && !line.trimmingCharacters(in: .whitespaces).hasPrefix("//") {
                    offenders.append("\(target)/\(file):\(number + 1)")
                }
            }
        }
        XCTAssertEqual(offenders, [], "read the time through DaemonClock")
    }

    /// The release is written once, in PeerdVersion; the man pages and the
    /// changelog name it, and protocol.md's table names every feature.
    func testTheReleaseAndFeaturesAreTheOnesTheDocsName() throws {
        func doc(_ name: String) throws -> String {
            try String(contentsOfFile: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../docs/\(name)").path, encoding: .utf8)
        }
        for page in ["peerd.8", "peerctl.1"] {
            let header = try doc(page).split(separator: "\n").first.map(String.init) ?? ""
            XCTAssertTrue(header.contains("\"peerd \(PeerdVersion.string)\""), "\(page): \(header)")
        }
        let changelog = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../CHANGELOG.md"), encoding: .utf8)
        XCTAssertTrue(changelog.contains("## \(PeerdVersion.string)"), "CHANGELOG.md has no entry for \(PeerdVersion.string)")
        let protocolText = try doc("protocol.md")
        for feature in WireFeature.allCases {
            XCTAssertTrue(protocolText.contains("| `\(feature.rawValue)` | \(feature.addedIn) |"), "protocol.md §9 lacks \(feature.rawValue)")
        }
    }
}
