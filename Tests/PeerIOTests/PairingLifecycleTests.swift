import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// The pairing state machine, run against itself with real SHA-256.
final class PairingLifecycleTests: XCTestCase {
    private let t0 = Date(timeIntervalSince1970: 5000)
    private let h = Array(repeating: UInt8(7), count: 32)
    private let na = Array(repeating: UInt8(1), count: 32)
    private let nb = Array(repeating: UInt8(2), count: 32)
    private let sha: @Sendable ([UInt8]) -> [UInt8] = { Sodium.sha256($0) }

    override func setUp() { try? Sodium.initialize() }

    private func messages(_ actions: [PairingAction]) -> [WireMessage] {
        actions.compactMap { if case .send(let m) = $0 { return m } else { return nil } }
    }

    /// Runs the exchange up to the point where the responder's user must type the code.
    private func exchange() -> (PairingLifecycle, PairingLifecycle, shown: String, asked: String) {
        var a = PairingLifecycle(initiatorWith: h, nonce: na, now: t0, timeout: 60, sha256: sha)
        var b = PairingLifecycle(responderWith: h, nonce: nb, now: t0, timeout: 60, sha256: sha)
        XCTAssertEqual(a.start(), [.send(.pairRequest)])
        let commit = messages(b.start())
        XCTAssertEqual(commit, [.pairCommit(Sodium.sha256(nb))], "the responder commits before it sees Na")
        let nonce = messages(a.received(commit[0]))
        XCTAssertEqual(nonce, [.pairNonce(na)])
        let bActions = b.received(nonce[0])
        guard case .askUser(let asked)? = bActions.last else { XCTFail("\(bActions)"); return (a, b, "", "") }
        let aActions = a.received(messages(bActions)[0])
        guard case .showCode(let shown)? = aActions.last else { XCTFail("\(aActions)"); return (a, b, "", "") }
        return (a, b, shown, asked)
    }

    func testBothSidesDeriveTheSameSixDigitCode() {
        var (a, b, shown, asked) = exchange()
        XCTAssertEqual(shown, asked)
        XCTAssertTrue(PairingCode.isWellFormed(shown))
        XCTAssertEqual(shown, PairingCode.derive(handshakeHash: h, initiatorNonce: na, responderNonce: nb, sha256: sha))
        // The trust is stored before anything is confirmed.
        XCTAssertEqual(b.userConfirmed(code: shown), [.storeTrust])
        XCTAssertEqual(b.step, .storingTrust)
        let confirm = b.trustStored(true)
        XCTAssertEqual(confirm, [.send(.pairConfirm), .paired])
        XCTAssertEqual(a.received(.pairConfirm), [.paired])
        XCTAssertEqual(a.step, .paired)
        XCTAssertEqual(b.step, .paired)
    }

    func testATrustStoreThatCannotBeWrittenRejectsOnBothSides() {
        var (a, b, shown, _) = exchange()
        XCTAssertEqual(b.userConfirmed(code: shown), [.storeTrust])
        let actions = b.trustStored(false)
        let text = "the other host could not store the pairing (its disk may be full)"
        XCTAssertEqual(actions, [.send(.pairReject(reason: .storageFailed, text: text)), .failed(.storageFailed, text)], "no pairConfirm goes out")
        guard case .send(let reject) = actions[0] else { return XCTFail() }
        XCTAssertEqual(a.received(reject), [.failed(.storageFailed, text)], "the initiator does not print paired")
        XCTAssertEqual(b.trustStored(true), [], "a late success changes nothing")
    }

    func testPairingFailureWireCodesArePinned() {
        XCTAssertEqual(PairingFailure.allCases.map(\.code), Array(1...8))
        XCTAssertEqual(PairingFailure.storageFailed.code, 8)
        XCTAssertEqual(PairingFailure(code: 8), .storageFailed)
    }

    func testWrongCodeFailsBothSides() {
        var (a, b, shown, _) = exchange()
        let wrong = shown == "000000" ? "000001" : "000000"
        let actions = b.userConfirmed(code: wrong)
        XCTAssertEqual(actions.last, .failed(.wrongCode, "the code typed does not match"))
        guard case .send(let reject) = actions[0] else { return XCTFail() }
        XCTAssertEqual(a.received(reject), [.failed(.wrongCode, "the code typed does not match")])
        XCTAssertEqual(b.userConfirmed(code: shown), [], "no second try on the same exchange")
    }

    func testUserRejectionEndsBothSides() {
        var (a, b, _, _) = exchange()
        let actions = b.userRejected()
        XCTAssertEqual(actions, [.send(.pairReject(reason: .rejected, text: "rejected by the user")), .failed(.rejected, "rejected by the user")])
        XCTAssertEqual(a.received(.pairReject(reason: .rejected, text: "rejected by the user")), [.failed(.rejected, "rejected by the user")])
        XCTAssertEqual(a.step, .failed(.rejected))
        XCTAssertEqual(b.userRejected(), [], "rejected once")
    }

    func testCommitmentMismatchIsCaught() {
        var a = PairingLifecycle(initiatorWith: h, nonce: na, now: t0, timeout: 60, sha256: sha)
        _ = a.received(.pairCommit(Sodium.sha256(nb)))
        let actions = a.received(.pairReveal(Array(repeating: 9, count: 32)))
        XCTAssertEqual(actions.last, .failed(.commitmentMismatch, "the revealed nonce does not match its commitment"))
    }

    func testDifferentHandshakesGiveDifferentCodes() {
        let one = PairingCode.derive(handshakeHash: h, initiatorNonce: na, responderNonce: nb, sha256: sha)
        let other = PairingCode.derive(handshakeHash: Array(repeating: 8, count: 32), initiatorNonce: na, responderNonce: nb, sha256: sha)
        XCTAssertNotEqual(one, other, "a man in the middle has two handshakes, hence two codes")
    }

    func testTimeoutAndOutOfOrder() {
        var b = PairingLifecycle(responderWith: h, nonce: nb, now: t0, timeout: 60, sha256: sha)
        XCTAssertEqual(b.tick(now: t0.addingTimeInterval(59)), [])
        XCTAssertEqual(b.tick(now: t0.addingTimeInterval(60)).last, .failed(.timedOut, "nobody confirmed the code in time"))
        var a = PairingLifecycle(initiatorWith: h, nonce: na, now: t0, timeout: 60, sha256: sha)
        XCTAssertEqual(a.received(.pairConfirm).last, .failed(.protocolError, "unexpected pairing message in step awaitingCommit"))
    }

    func testPairingMessagesRoundTrip() throws {
        for message: WireMessage in [.pairRequest, .pairCommit(na), .pairNonce(nb), .pairReveal(na), .pairConfirm,
                                     .pairReject(reason: .lockedOut, text: "later"), .unpair, .ack(12_345)] {
            XCTAssertEqual(try WireCodec.decode(WireCodec.encode(message)), message)
        }
        XCTAssertThrowsError(try WireCodec.decode([1, 0x09, 1, 2, 3])) { XCTAssertEqual($0 as? WireError, .truncated("pairCommit")) }
    }
}
