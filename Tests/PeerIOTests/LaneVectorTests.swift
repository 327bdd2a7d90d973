import XCTest
import PeerCore
@testable import PeerCrypto
@testable import PeerIO

/// The bulk lane's key and handshake (issue 44, docs/protocol.md §12):
/// the bytes `Tests/vectors/lane_vectors.py` computes apart from peerd,
/// from the Noise specification alone, pinned against peerd's Noise code,
/// so a second implementation and peerd agree (``LaneProtocolTests`` pins
/// the section's worked example).
final class LaneVectorTests: XCTestCase {
    private let laneKey = "f0a5b059f818f0a6619f001e27ff46f0ca5a449232a9b73c4b269898cd8adaa3"

    func testTheLaneKeyFromTheSessionsChainingKey() {
        let key = NoiseSymmetricState.hkdf(chainingKey: Array(0..<32), ikm: NoiseSymmetricState.laneLabel, count: 1)[0]
        XCTAssertEqual(Hex.encode(key), laneKey)
        XCTAssertEqual(String(decoding: NoiseSymmetricState.laneLabel, as: UTF8.self), "peerd bulk lane v1")
        let datagram = NoiseSymmetricState.hkdf(chainingKey: Array(0..<32), ikm: NoiseSymmetricState.datagramLabel, count: 1)[0]
        XCTAssertNotEqual(key, datagram, "its own label: never a datagram key")
    }

    func testTheLaneHandshakeVector() throws {
        let prologue = Array("peerd-lane/1".utf8) + Array(0xa0...0xaf)
        XCTAssertEqual(Hex.encode(prologue), "70656572642d6c616e652f31a0a1a2a3a4a5a6a7a8a9aaabacadaeaf")
        let psk = try XCTUnwrap(Hex.decode(laneKey))
        var initiator = try NoiseHandshakeState(pattern: .nnpsk0, initiator: true, prologue: prologue, localStatic: nil, psks: [psk],
                                                fixedEphemeral: NoiseKeyPair(secretKey: Array(0x20...0x3f)))
        var responder = try NoiseHandshakeState(pattern: .nnpsk0, initiator: false, prologue: prologue, localStatic: nil, psks: [psk],
                                                fixedEphemeral: NoiseKeyPair(secretKey: Array(0x40...0x5f)))
        let first = try initiator.writeMessage([])
        XCTAssertEqual(Hex.encode(first), "358072d6365880d1aeea329adf9121383851ed21a28e3b75e965d0d2cd16625492299039f2a6ec29baa00a86e3caafce")
        XCTAssertEqual(try responder.readMessage(first), [])
        let second = try responder.writeMessage([])
        XCTAssertEqual(Hex.encode(second), "79a631eede1bf9c98f12032cdeadd0e7a079398fc786b88cc846ec89af85a51a316809a42a575a520343158041f22c09")
        XCTAssertEqual(try initiator.readMessage(second), [])
        XCTAssertEqual(Hex.encode(responder.handshakeHash), "b71ac56c700d1ff661fd9400e19633b5bbb9a13f5eb0e42af4175dfd39b5c5fc")
        XCTAssertEqual(initiator.handshakeHash, responder.handshakeHash)
        // The transport keys, through a message each way.
        var (send, _) = try initiator.split()
        var (_, receive) = try responder.split()
        var toResponder = NoiseCipherState(key: try XCTUnwrap(Hex.decode("bfd8882d8ad2cef53d3875fbc601b0ff389b9b58c762aacc036dbcdd5b5bf8ef")))
        XCTAssertEqual(try send.encrypt(ad: [], [1, 2, 3]), try toResponder.encrypt(ad: [], [1, 2, 3]), "initiator to responder key")
        var fromInitiator = NoiseCipherState(key: try XCTUnwrap(Hex.decode("bfd8882d8ad2cef53d3875fbc601b0ff389b9b58c762aacc036dbcdd5b5bf8ef")))
        XCTAssertEqual(try receive.decrypt(ad: [], try fromInitiator.encrypt(ad: [], [4, 5])), [4, 5])
    }

    func testAnotherKeyOrAnotherSessionsPrologueFailsTheLane() throws {
        let psk = try XCTUnwrap(Hex.decode(laneKey))
        let prologue = Array("peerd-lane/1".utf8) + Array(0xa0...0xaf)
        for (otherKey, otherPrologue) in [(Array(repeating: UInt8(7), count: 32), prologue), (psk, Array("peerd-lane/1".utf8) + Array(repeating: 0, count: 16))] {
            var initiator = try NoiseHandshakeState(pattern: .nnpsk0, initiator: true, prologue: prologue, localStatic: nil, psks: [psk])
            var responder = try NoiseHandshakeState(pattern: .nnpsk0, initiator: false, prologue: otherPrologue, localStatic: nil, psks: [otherKey])
            XCTAssertThrowsError(try responder.readMessage(try initiator.writeMessage([])), "a third party without the key, or a lane meant for another session")
        }
    }

    func testBothEndsOfASessionDeriveTheSameLaneKey() throws {
        let a = NoiseKeyPair.generate(), b = NoiseKeyPair.generate()
        var initiator = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: [], localStatic: a)
        var responder = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: [], localStatic: b)
        XCTAssertThrowsError(try initiator.laneKey()) { XCTAssertEqual($0 as? NoiseError, .outOfOrder) }
        _ = try responder.readMessage(try initiator.writeMessage([]))
        _ = try initiator.readMessage(try responder.writeMessage([]))
        _ = try responder.readMessage(try initiator.writeMessage([]))
        XCTAssertEqual(try initiator.laneKey(), try responder.laneKey())
        XCTAssertNotEqual(try initiator.laneKey(), try initiator.datagramKeys().send)
    }
}
