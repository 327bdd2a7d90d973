import Foundation
import XCTest
import PeerProtocol
@testable import PeerCore
@testable import PeerCrypto
@testable import PeerIO

/// The bulk lane's bytes as docs/protocol.md §12 gives them (issue 44):
/// the `laneOffer`, the greeting, the handshake's second frame and a first
/// lane frame, recomputed from the section's inputs through peerd's own
/// code. If the code and the document ever disagree, this fails; and the
/// handshake's bytes are the ones `Tests/vectors/lane_vectors.py`
/// computes apart from peerd (``LaneVectorTests``).
final class LaneProtocolTests: XCTestCase {
    override func setUp() { try? Sodium.initialize() }

    func testTheSectionsVectors() throws {
        let token: [UInt8] = Array(0xa0...0xaf)
        let psk = NoiseSymmetricState.hkdf(chainingKey: Array(0..<32), ikm: NoiseSymmetricState.laneLabel, count: 1)[0]
        let offer = WireCodec.encode(LaneOffer(port: 0x1f4a, token: token).wire)
        var initiator = try NoiseHandshakeState(pattern: .nnpsk0, initiator: true, prologue: LaneGreeting.prologue(token: token), localStatic: nil,
                                                psks: [psk], fixedEphemeral: NoiseKeyPair(secretKey: Array(0x20...0x3f)))
        var responder = try NoiseHandshakeState(pattern: .nnpsk0, initiator: false, prologue: LaneGreeting.prologue(token: token), localStatic: nil,
                                                psks: [psk], fixedEphemeral: NoiseKeyPair(secretKey: Array(0x40...0x5f)))
        let greeting = WireCodec.frame(LaneGreeting(token: token, handshake: try initiator.writeMessage([])).bytes)
        // The responder reads the greeting as the lane port does.
        let parsed = try XCTUnwrap(LaneGreeting.parse(Array(greeting.dropFirst(2))))
        XCTAssertEqual(parsed.token, token)
        XCTAssertEqual(try responder.readMessage(parsed.handshake), [])
        let second = WireCodec.frame(try responder.writeMessage([]))
        XCTAssertEqual(try initiator.readMessage(Array(second.dropFirst(2))), [])
        var (send, _) = try initiator.split()
        let flow = try XCTUnwrap(FlowID(bytes: Array(0x10...0x1f)))
        let data = WireCodec.encode(.bulk(.streamData(flow, bytes: Array("hi".utf8))))
        let first = WireCodec.frame(try send.encrypt(ad: [], data))
        let lines = [
            "laneOffer plaintext \(Hex.encode(offer))",
            "greeting frame \(Hex.encode(greeting))",
            "second frame \(Hex.encode(second))",
            "streamData plaintext \(Hex.encode(data))",
            "first lane frame \(Hex.encode(first))",
        ]
        XCTAssertEqual(greeting.count, 2 + 72)
        XCTAssertEqual(Array(greeting.prefix(10)), [0, 72] + Array("peerdln1".utf8))
        let document = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../docs/protocol.md"), encoding: .utf8)
        let compact = document.replacingOccurrences(of: " ", with: "").replacingOccurrences(of: "\n", with: "")
        for line in lines {
            let value = String(line.split(separator: " ").last!)
            XCTAssertTrue(compact.contains(value), "docs/protocol.md §12 lacks \(line)")
        }
        print(lines.joined(separator: "\n"))
    }

    func testAGreetingIsExactlyItsLayout() {
        let token = [UInt8](repeating: 1, count: 16), handshake = [UInt8](repeating: 2, count: 48)
        let bytes = LaneGreeting(token: token, handshake: handshake).bytes
        XCTAssertEqual(LaneGreeting.parse(bytes), LaneGreeting(token: token, handshake: handshake))
        XCTAssertNil(LaneGreeting.parse(Array(bytes.dropLast())), "short")
        XCTAssertNil(LaneGreeting.parse(bytes + [0]), "long")
        XCTAssertNil(LaneGreeting.parse(Array("peerdln2".utf8) + bytes.dropFirst(8)), "another magic")
        XCTAssertEqual(LaneOffer.type, 0x33)
        XCTAssertEqual(try LaneOffer.decode([0x1f, 0x4a] + token), LaneOffer(port: 8010, token: token))
        XCTAssertThrowsError(try LaneOffer.decode([0x1f, 0x4a] + token + [0]), "trailing bytes")
        XCTAssertThrowsError(try LaneOffer.decode([0x1f, 0x4a] + token.dropLast()), "a short token")
    }
}
