import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO

/// The published cacophony vectors for the 25519/ChaChaPoly/SHA256 suite,
/// copied from shared/fixtures into Tests/PeerIOTests/Fixtures.
final class NoiseVectorTests: XCTestCase {
    private struct File: Decodable {
        var vectors: [Vector]
    }

    private struct Vector: Decodable {
        var protocol_name: String
        var init_prologue: String
        var init_ephemeral: String
        var init_static: String?
        var init_remote_static: String?
        var init_psks: [String]?
        var resp_prologue: String
        var resp_ephemeral: String
        var resp_static: String?
        var resp_remote_static: String?
        var resp_psks: [String]?
        var handshake_hash: String
        var messages: [Message]
    }

    private struct Message: Decodable {
        var payload: String
        var ciphertext: String
    }

    private func hex(_ text: String?) -> [UInt8]? { text.flatMap { Hex.decode($0) } }

    private func loadVectors() throws -> [Vector] {
        let url = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent("Fixtures/noise-vectors.json")
        return try JSONDecoder().decode(File.self, from: Data(contentsOf: url)).vectors
    }

    override func setUp() { try? Sodium.initialize() }

    func testEveryPublishedVector() throws {
        let vectors = try loadVectors()
        XCTAssertTrue(vectors.contains { $0.protocol_name == "Noise_XX_25519_ChaChaPoly_SHA256" }, "the XX vector is present")
        for vector in vectors {
            try check(vector)
        }
        XCTAssertEqual(vectors.count, 5)
    }

    private func check(_ v: Vector) throws {
        let name = v.protocol_name
        let pattern = try XCTUnwrap(NoiseHandshakePattern.named(name), name)
        var initiator = try NoiseHandshakeState(
            pattern: pattern, initiator: true, prologue: hex(v.init_prologue)!,
            localStatic: hex(v.init_static).map(NoiseKeyPair.init(secretKey:)), remoteStatic: hex(v.init_remote_static),
            psks: (v.init_psks ?? []).compactMap { Hex.decode($0) }, fixedEphemeral: NoiseKeyPair(secretKey: hex(v.init_ephemeral)!))
        var responder = try NoiseHandshakeState(
            pattern: pattern, initiator: false, prologue: hex(v.resp_prologue)!,
            localStatic: hex(v.resp_static).map(NoiseKeyPair.init(secretKey:)), remoteStatic: hex(v.resp_remote_static),
            psks: (v.resp_psks ?? []).compactMap { Hex.decode($0) }, fixedEphemeral: NoiseKeyPair(secretKey: hex(v.resp_ephemeral)!))
        var index = 0
        while !initiator.isComplete {
            let message = v.messages[index]
            let fromInitiator = index % 2 == 0
            let written = fromInitiator ? try initiator.writeMessage(hex(message.payload)!) : try responder.writeMessage(hex(message.payload)!)
            XCTAssertEqual(Hex.encode(written), message.ciphertext, "\(name) handshake message \(index)")
            let read = fromInitiator ? try responder.readMessage(written) : try initiator.readMessage(written)
            XCTAssertEqual(Hex.encode(read), message.payload, "\(name) handshake payload \(index)")
            index += 1
        }
        XCTAssertTrue(responder.isComplete)
        XCTAssertEqual(Hex.encode(initiator.handshakeHash), v.handshake_hash, "\(name) handshake hash")
        XCTAssertEqual(Hex.encode(responder.handshakeHash), v.handshake_hash)
        var (initSend, initReceive) = try initiator.split()
        var (respSend, respReceive) = try responder.split()
        // The session's in-place path (issue 25) on the same keys, frame by frame.
        var (initSendInPlace, initReceiveInPlace) = try initiator.split()
        var (respSendInPlace, respReceiveInPlace) = try responder.split()
        // Transport messages keep alternating from where the handshake stopped.
        while index < v.messages.count {
            let message = v.messages[index]
            let fromInitiator = index % 2 == 0
            let written = fromInitiator ? try initSend.encrypt(ad: [], hex(message.payload)!) : try respSend.encrypt(ad: [], hex(message.payload)!)
            XCTAssertEqual(Hex.encode(written), message.ciphertext, "\(name) transport message \(index)")
            let read = fromInitiator ? try respReceive.decrypt(ad: [], written) : try initReceive.decrypt(ad: [], written)
            XCTAssertEqual(Hex.encode(read), message.payload)
            let payload = hex(message.payload)!
            var frame = payload + [UInt8](repeating: 0, count: NoiseCipherState.tagLength)
            if fromInitiator { try initSendInPlace.sealInPlace(&frame, offset: 0, count: payload.count) } else {
                try respSendInPlace.sealInPlace(&frame, offset: 0, count: payload.count)
            }
            XCTAssertEqual(Hex.encode(frame), message.ciphertext, "\(name) transport message \(index), sealed in place")
            let opened = try frame.withUnsafeMutableBytes { raw in
                fromInitiator ? try respReceiveInPlace.openInPlace(raw) : try initReceiveInPlace.openInPlace(raw)
            }
            XCTAssertEqual(Hex.encode(Array(frame[0..<opened])), message.payload, "opened in place")
            index += 1
        }
    }

    func testTamperedMessageFailsWithBadTag() throws {
        let a = NoiseKeyPair.generate(), b = NoiseKeyPair.generate()
        var initiator = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: [], localStatic: a)
        var responder = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: [], localStatic: b)
        _ = try responder.readMessage(try initiator.writeMessage([]))
        var second = try responder.writeMessage([1, 2, 3])
        second[40] ^= 0x01
        XCTAssertThrowsError(try initiator.readMessage(second)) { XCTAssertEqual($0 as? NoiseError, .decryptFailed) }
    }

    func testTruncatedAndOutOfOrderMessagesAreErrors() throws {
        let a = NoiseKeyPair.generate(), b = NoiseKeyPair.generate()
        var initiator = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: [], localStatic: a)
        var responder = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: [], localStatic: b)
        XCTAssertThrowsError(try responder.writeMessage([])) { XCTAssertEqual($0 as? NoiseError, .outOfOrder) }
        XCTAssertThrowsError(try responder.readMessage(Array(repeating: 7, count: 31))) { XCTAssertEqual($0 as? NoiseError, .truncated) }
        let first = try initiator.writeMessage([])
        _ = try responder.readMessage(first)
        let second = try responder.writeMessage([])
        XCTAssertThrowsError(try initiator.readMessage(Array(second.prefix(70)))) { XCTAssertEqual($0 as? NoiseError, .truncated) }
        XCTAssertThrowsError(try initiator.readMessage(Array(repeating: 0, count: 70_000))) {
            XCTAssertEqual($0 as? NoiseError, .messageTooLong(70_000))
        }
    }

    func testXXAuthenticatesBothStaticKeysAndDifferentProloguesFail() throws {
        let a = NoiseKeyPair.generate(), b = NoiseKeyPair.generate()
        var initiator = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: Array("peerd/1".utf8), localStatic: a)
        var responder = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: Array("peerd/1".utf8), localStatic: b)
        _ = try responder.readMessage(try initiator.writeMessage([]))
        _ = try initiator.readMessage(try responder.writeMessage([]))
        _ = try responder.readMessage(try initiator.writeMessage([]))
        XCTAssertEqual(initiator.remoteStatic, b.publicKey)
        XCTAssertEqual(responder.remoteStatic, a.publicKey)

        var other = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: Array("peerd/2".utf8), localStatic: a)
        var responder2 = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: Array("peerd/1".utf8), localStatic: b)
        _ = try responder2.readMessage(try other.writeMessage([]))
        XCTAssertThrowsError(try other.readMessage(try responder2.writeMessage([]))) { XCTAssertEqual($0 as? NoiseError, .decryptFailed) }
    }
}
