import XCTest
@testable import PeerCrypto
@testable import PeerIO

/// The datagram path's keys (issue 26): derived from the handshake's final
/// chaining key under their own label, one per direction, never the
/// transport's.
final class DatagramKeysTests: XCTestCase {
    /// HKDF(ck, "peerd datagram v1", 2) with ck = 00 01 … 1f, computed
    /// apart from peerd (Python's hmac and hashlib): the bytes another
    /// implementation must derive.
    func testTheDerivationVector() {
        let outputs = NoiseSymmetricState.hkdf(chainingKey: Array(0..<32), ikm: NoiseSymmetricState.datagramLabel, count: 2)
        XCTAssertEqual(Hex.encode(outputs[0]), "8729bb96c34c866f65a52850927173b2854347a7377a9024e76e66d27bf99ec7", "initiator to responder")
        XCTAssertEqual(Hex.encode(outputs[1]), "619d650655ac9fb5cf8305f74f1bc97fd5ff596f7e76b6b13a2113cb0d191acf", "responder to initiator")
        XCTAssertEqual(String(decoding: NoiseSymmetricState.datagramLabel, as: UTF8.self), "peerd datagram v1")
        // Split()'s first output from the same chaining key, for contrast.
        XCTAssertEqual(Hex.encode(NoiseSymmetricState.hkdf(chainingKey: Array(0..<32), ikm: [], count: 2)[0]),
                       "1d7e0d6f1d9da2d68dabed53b5f88345f3fd01cb75411fbe5aa4293bd8f430d6")
    }

    func testBothSidesAgreePerDirectionAndNeitherIsATransportKey() throws {
        let a = NoiseKeyPair.generate(), b = NoiseKeyPair.generate()
        var initiator = try NoiseHandshakeState(pattern: .xx, initiator: true, prologue: [], localStatic: a)
        var responder = try NoiseHandshakeState(pattern: .xx, initiator: false, prologue: [], localStatic: b)
        XCTAssertThrowsError(try initiator.datagramKeys()) { XCTAssertEqual($0 as? NoiseError, .outOfOrder) }
        _ = try responder.readMessage(try initiator.writeMessage([]))
        _ = try initiator.readMessage(try responder.writeMessage([]))
        _ = try responder.readMessage(try initiator.writeMessage([]))
        let mine = try initiator.datagramKeys(), theirs = try responder.datagramKeys()
        XCTAssertEqual(mine.send, theirs.receive)
        XCTAssertEqual(mine.receive, theirs.send)
        XCTAssertNotEqual(mine.send, mine.receive, "one key per direction")
        XCTAssertEqual(mine.send.count, 32)
        // A datagram sealed under the transport's key does not open under
        // the datagram key: the keys differ.
        var transport = try initiator.split().send
        let sealed = try transport.encrypt(ad: [], [1, 2, 3])
        var datagram = NoiseCipherState(key: theirs.receive)
        XCTAssertThrowsError(try datagram.decrypt(ad: [], sealed))
    }
}
