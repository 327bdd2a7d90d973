import FoundationEssentials
import PeerProtocol
import XCTest
@testable import PeerKit

/// Each event kind as a case with its payload (issue 43, point 3): what a
/// kind must carry is there, or the event stays whole as `other`.
final class PeerUpdateTests: XCTestCase {
    private let time = Date(timeIntervalSince1970: 1)
    private let row = PeerSnapshot(id: UUID(), peerId: "ab", name: "bravo", state: .notConnected, endpoints: [], info: [:],
                                   lastSeen: Date(timeIntervalSince1970: 1), lost: false)

    private func event(_ type: EventKind) -> ControlEvent { ControlEvent(seq: 1, type: type, time: time) }

    func testEachKindCarriesItsPayload() {
        var changed = event(.stateChanged)
        changed.peer = row
        changed.reason = .declined
        changed.detail = "no thanks"
        XCTAssertEqual(changed.update, .stateChanged(row, reason: .declined, detail: "no thanks"))

        var found = event(.peerFound)
        found.peer = row
        XCTAssertEqual(found.update, .peerFound(row))

        var delivered = event(.delivered)
        delivered.peer = row
        delivered.delivery = DeliveryInfo(session: 3, through: 9)
        XCTAssertEqual(delivered.update, .delivered(row, DeliveryInfo(session: 3, through: 9)))

        var failed = event(.pairingFailed)
        failed.pairingFailure = .wrongCode
        XCTAssertEqual(failed.update, .pairingFailed(nil, .wrongCode))

        var opened = event(.channelOpened)
        opened.peer = row
        XCTAssertEqual(opened.update, .channelOpened(row))
    }

    func testAMessagesDataIsDecoded() {
        var message = event(.message)
        message.message = MessageInfo(from: row.id, peerId: "ab", data: Data([0, 1, 255]).base64EncodedString(), size: 3, app: "chat")
        XCTAssertEqual(message.update, .message(PeerMessage(from: row.id, peerID: "ab", bytes: [0, 1, 255], app: "chat", received: nil)))
        message.message?.data = "not base64!"
        XCTAssertEqual(message.update, .other(message), "undecodable data is not guessed at")
    }

    func testAnEventWithoutWhatItsKindCarriesStaysWhole() {
        for kind in [EventKind.peerFound, .peerUpdated, .peerLost, .peerRemoved, .stateChanged, .invitation, .delivered, .undelivered,
                     .appStateChanged, .message, .stored, .identityMismatch, .pairingRequest, .pairingCode, .pairingFailed,
                     .transferOffered, .transferProgress, .transferCompleted, .transferFailed, .error] {
            XCTAssertEqual(event(kind).update, .other(event(kind)), "\(kind)")
        }
        // Kinds whose peer may be absent still have their case.
        XCTAssertEqual(event(.paired).update, .paired(nil))
        XCTAssertEqual(event(.unpaired).update, .unpaired(nil))
        XCTAssertEqual(event(.inviteFailed).update, .inviteFailed(nil, reason: nil, detail: nil))
    }

    func testAGapHasNoUpdate() {
        XCTAssertNil(PeerEvent.gap(EventGap(reason: .truncated, after: 3)).update)
        XCTAssertEqual(PeerEvent.event(event(.paired)).update, .paired(nil))
    }
}
