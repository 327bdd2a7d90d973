import XCTest
@testable import PeerCore

final class InboundRouteTests: XCTestCase {
    func testTable() {
        let data = WireMessage.data(more: false, bytes: [1])
        let commit = WireMessage.pairCommit([1, 2])
        let reject = WireMessage.pairReject(reason: .rejected, text: "no")
        // (name, message, canSendData, canCarryPairing, sent, pairing, expected)
        let rows: [(String, WireMessage, Bool, Bool, UInt64, PairingPresence, InboundRoute)] = [
            ("an ack of what was sent", .ack(3), true, true, 3, .none, .acknowledged(3)),
            ("an ack of more than was sent", .ack(4), true, true, 3, .none,
             .violation("an acknowledgement of 4 messages, but 3 were sent")),
            ("an ack before data may flow", .ack(0), false, true, 0, .none,
             .violation("an acknowledgement of 0 messages, but 0 were sent")),
            ("pairing before acceptance", .pairRequest, false, false, 0, .none,
             .violation("a pairing message before the session was accepted")),
            ("unpair before acceptance", .unpair, true, false, 0, .none,
             .violation("a pairing message before the session was accepted")),
            ("unpair", .unpair, true, true, 0, .running, .unpaired),
            ("a first pairing request", .pairRequest, true, true, 0, .none, .pairingRequested),
            ("a new request after a pairing ended", .pairRequest, true, true, 0, .finished, .pairingRequested),
            ("a request while one runs goes to it", .pairRequest, true, true, 0, .running, .pairingStep(.pairRequest)),
            ("a step of the running pairing", commit, true, true, 0, .running, .pairingStep(commit)),
            ("a late step after it ended", commit, true, true, 0, .finished, .pairingStep(commit)),
            ("a stray step", commit, true, true, 0, .none, .rejectStrayPairing),
            ("a stray reject", reject, true, true, 0, .none, .ignore),
            ("data goes to the lifecycle", data, true, true, 0, .none, .lifecycle(data)),
            ("a ping goes to the lifecycle", .ping(7), false, false, 0, .none, .lifecycle(.ping(7))),
            ("an invitation goes to the lifecycle", .accept(), false, false, 0, .none, .lifecycle(.accept())),
            ("a feature's message goes to its owner, which checks its rules", .feature(type: 0x30, body: [1]), false, false, 0, .none,
             .feature(type: 0x30, body: [1])),
            ("a queued tag (issue 42, point 6)", .queued(QueueTag(epoch: 3, seq: 1)), true, true, 0, .none, .queued(QueueTag(epoch: 3, seq: 1))),
            ("a queued tag with epoch 0", .queued(QueueTag(epoch: 0, seq: 1)), true, true, 0, .none,
             .violation("a queued tag with epoch or seq 0")),
            ("a queued tag with seq 0", .queued(QueueTag(epoch: 3, seq: 0)), true, true, 0, .none,
             .violation("a queued tag with epoch or seq 0")),
            ("a queued tag before acceptance", .queued(QueueTag(epoch: 3, seq: 1)), false, false, 0, .none,
             .violation("a queued tag outside an accepted session")),
        ]
        for (name, message, canSendData, canCarryPairing, sent, pairing, expected) in rows {
            XCTAssertEqual(InboundRoute.of(message, canSendData: canSendData, canCarryPairing: canCarryPairing, sent: sent, pairing: pairing),
                           expected, name)
        }
    }
}
