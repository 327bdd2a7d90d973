import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO

/// The worked example of docs/protocol.md, recomputed: if the code and the
/// document ever disagree, this fails.
final class ProtocolExampleTests: XCTestCase {
    override func setUp() { try? Sodium.initialize() }

    static func key(_ label: String) -> NoiseKeyPair { NoiseKeyPair(secretKey: Sodium.sha256(Array(label.utf8))) }

    func testWorkedExample() throws {
        let initiatorStatic = Self.key("peerd example initiator static")
        let responderStatic = Self.key("peerd example responder static")
        var initiator = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: NoiseTransport.prologue,
                                                localStatic: initiatorStatic, fixedEphemeral: Self.key("peerd example initiator ephemeral"))
        var responder = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: NoiseTransport.prologue,
                                                localStatic: responderStatic, fixedEphemeral: Self.key("peerd example responder ephemeral"))
        let m1 = try initiator.writeMessage([])
        _ = try responder.readMessage(m1)
        let m2 = try responder.writeMessage([])
        _ = try initiator.readMessage(m2)
        let m3 = try initiator.writeMessage([])
        _ = try responder.readMessage(m3)
        var (send, _) = try initiator.split()
        let invite = WireCodec.encode(.invite(name: "a", context: Array("hi".utf8), timeoutMilliseconds: 30_000))
        let frame = WireCodec.frame(try send.encrypt(ad: [], invite))
        let lines = [
            "initiator static public \(Hex.encode(initiatorStatic.publicKey))",
            "initiator peer id \(IdentityKey.fingerprint(of: initiatorStatic.publicKey))",
            "responder static public \(Hex.encode(responderStatic.publicKey))",
            "responder peer id \(IdentityKey.fingerprint(of: responderStatic.publicKey))",
            "frame 1 \(Hex.encode(WireCodec.frame(m1)))",
            "frame 2 \(Hex.encode(WireCodec.frame(m2)))",
            "frame 3 \(Hex.encode(WireCodec.frame(m3)))",
            "handshake hash \(Hex.encode(initiator.handshakeHash))",
            "invite plaintext \(Hex.encode(invite))",
            "invite frame \(Hex.encode(frame))",
        ]
        let document = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/protocol.md"), encoding: .utf8)
        for line in lines {
            let value = String(line.split(separator: " ").last!)
            XCTAssertTrue(document.contains(value), "docs/protocol.md lacks \(line)")
        }
        print(lines.joined(separator: "\n"))
    }
}
