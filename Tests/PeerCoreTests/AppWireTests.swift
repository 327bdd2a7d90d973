import XCTest
@testable import PeerCore
import PeerProtocol

/// Feature `apps` on the wire (docs/protocol.md §10): the type bytes and
/// layouts pinned, every message round-tripped, bad bodies refused, and
/// one app's fragments never mixed with another's.
final class AppWireTests: XCTestCase {
    func testTypeBytesAndLayoutsArePinned() {
        XCTAssertEqual(WireCodec.encode(.app(.list(["chat", "clip"]))), [1, 0x20, 2, 4] + Array("chat".utf8) + [4] + Array("clip".utf8))
        XCTAssertEqual(WireCodec.encode(.app(.open(number: 1, name: "chat"))), [1, 0x21, 0, 1, 4] + Array("chat".utf8))
        XCTAssertEqual(WireCodec.encode(.app(.data(number: 258, more: true, bytes: [7, 8]))), [1, 0x22, 1, 2, 1, 7, 8])
        XCTAssertEqual(WireCodec.encode(.app(.busy(number: 1, message: 5, text: "full"))), [1, 0x23, 0, 1, 0, 0, 0, 0, 0, 0, 0, 5, 0, 4] + Array("full".utf8))
        XCTAssertEqual(WireCodec.encode(.app(.ready(number: 3))), [1, 0x24, 0, 3])
        XCTAssertEqual(WireCodec.encode(.app(.retry(number: 3))), [1, 0x25, 0, 3])
        XCTAssertEqual(WireCodec.encode(.app(.invite(name: "ab", timeoutMilliseconds: 1000, context: [9]))), [1, 0x26, 2, 0x61, 0x62, 0, 0, 0x03, 0xE8, 0, 1, 9])
        XCTAssertEqual(WireCodec.encode(.app(.accept(name: "ab"))), [1, 0x27, 2, 0x61, 0x62])
        XCTAssertEqual(WireCodec.encode(.app(.decline(name: "ab", reason: .declined, text: "no"))), [1, 0x28, 2, 0x61, 0x62, 1, 0, 2, 0x6E, 0x6F])
        XCTAssertEqual(WireCodec.encode(.app(.leave(name: "ab", reason: .timedOut, text: ""))), [1, 0x29, 2, 0x61, 0x62, 3, 0, 0])
        XCTAssertEqual(WireFeature.apps.rawValue, "apps")
        XCTAssertEqual(WireFeature.apps.addedIn, "0.3.0")
    }

    func testEveryMessageRoundTrips() throws {
        let messages: [AppMessage] = [.invite(name: "chat", timeoutMilliseconds: 30000, context: [0, 1, 255]), .accept(name: "chat"),
                                      .decline(name: "clip", reason: .noClient, text: "none here"), .leave(name: "chat", reason: .left, text: ""),
                                      .list([]), .list(["a", "chat-2"]), .open(number: 65535, name: "x1"), .data(number: 1, more: false, bytes: []),
                                      .data(number: 9, more: true, bytes: Array(repeating: 0xAB, count: 1000)), .busy(number: 2, message: 1 << 40, text: ""),
                                      .ready(number: 1), .retry(number: 1)]
        for message in messages {
            XCTAssertEqual(try WireCodec.decode(WireCodec.encode(.app(message))), .app(message), "\(message)")
        }
    }

    func testBadBodiesAreRefused() {
        XCTAssertThrowsError(try WireCodec.decode([1, 0x22, 0, 1, 2])) { XCTAssertEqual($0 as? WireError, .unknownFlags("appData flags", 2)) }
        XCTAssertThrowsError(try WireCodec.decode([1, 0x20, 65])) { XCTAssertEqual($0 as? WireError, .fieldTooLong("appList", 65)) }
        XCTAssertThrowsError(try WireCodec.decode([1, 0x21, 0, 1, 64] + Array(repeating: 0x61, count: 64)))
        XCTAssertThrowsError(try WireCodec.decode([1, 0x24, 0])) { XCTAssertEqual($0 as? WireError, .truncated("appReady number")) }
        XCTAssertThrowsError(try WireCodec.decode([1, 0x25, 0, 1, 0])) { XCTAssertEqual($0 as? WireError, .trailingBytes("message type 0x25")) }
        XCTAssertThrowsError(try WireCodec.decode([1, 0x2B])) { XCTAssertEqual($0 as? WireError, .unknownType(0x2B)) }
        XCTAssertThrowsError(try WireCodec.decode([1, 0x2A, 0])) { XCTAssertEqual($0 as? WireError, .truncated("appFlow number")) }
    }

    func testAnAppsFlowOpensInsideAppFlow() throws {
        let flow = FlowID(bytes: Array(1...16))!
        let open = WireMessage.app(.flow(number: 2, opening: .streamOpen(flow, name: "s")))
        XCTAssertEqual(WireCodec.encode(open), [1, 0x2A, 0, 2, 0x18] + Array(1...16) + [1, 0x73],
                       "number, then the streamOpen whole: its type byte and body")
        XCTAssertEqual(try WireCodec.decode(WireCodec.encode(open)), open)
        let offer = WireMessage.app(.flow(number: 1, opening: .offer(flow, more: true, totalFiles: 2, totalBytes: 3,
                                                                      files: [OfferedFile(name: [0x61], size: 3, mode: 0o644, mtime: 9)])))
        XCTAssertEqual(Array(WireCodec.encode(offer).prefix(5)), [1, 0x2A, 0, 1, 0x10])
        XCTAssertEqual(try WireCodec.decode(WireCodec.encode(offer)), offer)
        // Only an opening: the rest of a flow goes by its id, as the default app's.
        let chunk = WireCodec.encode(.bulk(.chunk(flow, file: 0, offset: 0, bytes: [1])))
        XCTAssertThrowsError(try WireCodec.decode([1, 0x2A, 0, 1] + chunk.dropFirst())) { XCTAssertEqual($0 as? WireError, .unknownType(0x12)) }
        XCTAssertTrue(AppMessage.opensFlow(.streamOpen(flow, name: "s")))
        XCTAssertFalse(AppMessage.opensFlow(.credit(flow, bytes: 1)))
    }

    func testAnAppsFlowNeedsAppsAndWhatItOpens() {
        let flow = FlowID(bytes: Array(1...16))!
        let open = WireMessage.app(.flow(number: 1, opening: .streamOpen(flow, name: "s")))
        let filesAndApps = PeerHello(release: "0.3.0", names: ["files", "apps"])
        XCTAssertFalse(filesAndApps.maySend(open), "a stream's opening needs streams as well as apps")
        XCTAssertEqual(filesAndApps.refusal(of: open), "a message that needs apps and streams, which the peer did not announce")
        XCTAssertTrue(PeerHello(release: "0.3.0", names: ["streams", "apps"]).maySend(open))
        XCTAssertFalse(PeerHello(release: "0.2.0", names: ["files", "streams"]).maySend(open))
    }

    func testAnInvitationForAnAppCarriesItAfterTheContext() throws {
        let invite = WireMessage.invite(name: "a", context: [7], timeoutMilliseconds: 1000, app: "chat")
        XCTAssertEqual(WireCodec.encode(invite), [1, 0x01, 0, 0, 0x03, 0xE8, 2, 1, 0x61, 0, 1, 7, 4] + Array("chat".utf8), "flag bit 1, then app_len and app")
        XCTAssertEqual(try WireCodec.decode(WireCodec.encode(invite)), invite)
        XCTAssertEqual(WireFeature.needed(for: invite), [.apps])
        XCTAssertEqual(WireFeature.needed(for: .invite(name: "a", context: [], timeoutMilliseconds: 1)), [], "the default app's invitation is as before")
    }

    func testASessionForAnAppAdmitsNoDefaultData() {
        let t0 = Date(timeIntervalSince1970: 0)
        var invitee = SessionLifecycle(inviteeAt: t0, limits: SessionLifecycle.Limits())
        _ = invitee.handshakeCompleted(remotePeerID: String(repeating: "a", count: 32), expectedPeerID: nil, now: t0)
        _ = invitee.received(.invite(name: "x", context: [], timeoutMilliseconds: 1000, app: "chat"), now: t0)
        XCTAssertEqual(invitee.admission, "chat")
        XCTAssertEqual(invitee.receivedInvitation?.app, "chat")
        _ = invitee.decided(accept: true, now: t0)
        XCTAssertEqual(invitee.received(.app(.data(number: 1, more: false, bytes: [1])), now: t0), [.deliverApp(1, [1])])
        XCTAssertEqual(invitee.received(.data(more: false, bytes: [2]), now: t0).last,
                       .finish(.protocolError, "default-app data on a session accepted for app 'chat' alone"))

        var inviter = SessionLifecycle(inviterAt: t0, name: "x", context: [], inviteTimeout: 30, limits: SessionLifecycle.Limits(), app: "chat")
        let old = inviter.handshakeCompleted(remotePeerID: String(repeating: "b", count: 32), expectedPeerID: nil,
                                             remoteFeatures: [.acceptName, .files, .streams], now: t0)
        XCTAssertEqual(old.last, .finish(.closedLocally, "the peer's release cannot carry app traffic (no feature 'apps')"),
                       "a release without apps is never sent an invitation for one")
    }

    func testOnceTheDefaultAppJoinsTheSessionItsDataIsTaken() throws {
        let t0 = Date(timeIntervalSince1970: 0)
        var invitee = SessionLifecycle(inviteeAt: t0, limits: SessionLifecycle.Limits())
        XCTAssertEqual(invitee.joinDefault { $0.invite(context: [], timeout: 30, now: t0) }, [], "nothing before the session is accepted")
        _ = invitee.handshakeCompleted(remotePeerID: String(repeating: "a", count: 32), expectedPeerID: nil, now: t0)
        _ = invitee.received(.invite(name: "x", context: [], timeoutMilliseconds: 1000, app: "chat"), now: t0)
        _ = invitee.decided(accept: true, now: t0)
        XCTAssertFalse(invitee.defaultJoin.isJoined)
        XCTAssertEqual(invitee.joinDefault { $0.peerInvited(context: [1], timeout: 10, now: t0) }, [.decide(context: [1], timeoutSeconds: 10)])
        XCTAssertEqual(invitee.joinDefault { $0.decided(accept: true) }, [.sendAccept, .joined])
        XCTAssertEqual(invitee.received(.data(more: false, bytes: [2]), now: t0), [.deliver([2])], "the default app's data goes now")
        XCTAssertEqual(invitee.admission, "chat", "what the session was asked for stays known")

        // The join rides on appInvite .. appLeave with the empty name: the layout is §10's.
        let join = WireMessage.app(.invite(name: "", timeoutMilliseconds: 30_000, context: [7]))
        XCTAssertEqual(WireCodec.encode(join), [1, 0x26, 0, 0, 0, 0x75, 0x30, 0, 1, 7])
        XCTAssertEqual(try WireCodec.decode(WireCodec.encode(join)), join)
        XCTAssertEqual(WireCodec.encode(.app(.accept(name: ""))), [1, 0x27, 0])
    }

    func testAppMessagesNeedTheFeature() {
        let old = PeerHello(release: "0.2.0", names: ["accept-name", "files", "streams"])
        XCTAssertNotNil(old.refusal(of: .app(.list([]))))
        XCTAssertNotNil(old.refusal(of: .app(.data(number: 1, more: false, bytes: []))))
        XCTAssertNil(PeerHello.ours(fastSHA256: true).refusal(of: .app(.ready(number: 1))))
    }

    func testFragmentsFitOneFrameAndReassembleUnderTheirNumber() {
        let data = (0..<(AppCodec.maxFragment * 2 + 10)).map { UInt8(truncatingIfNeeded: $0) }
        let fragments = AppCodec.fragments(of: data, number: 4)
        XCTAssertEqual(fragments.count, 3)
        var assembler = MessageAssembler(maxMessage: 1 << 20)
        var outcome: MessageAssembler.Outcome = .incomplete
        for fragment in fragments {
            XCTAssertLessThanOrEqual(WireCodec.encode(fragment).count + 16, WireCodec.maxNoiseMessage)
            guard case .app(.data(let number, let more, let bytes)) = fragment else { return XCTFail() }
            outcome = assembler.add(more: more, bytes: bytes, app: number)
        }
        XCTAssertEqual(outcome, .message(data, app: 4))
    }

    func testAFragmentOfAnotherAppInsideAMessageIsAProtocolError() {
        var assembler = MessageAssembler(maxMessage: 100)
        XCTAssertEqual(assembler.add(more: true, bytes: [1], app: 1), .incomplete)
        XCTAssertEqual(assembler.add(more: false, bytes: [2], app: 0), .interleaved(expected: 1, got: 0))
        XCTAssertEqual(assembler.add(more: false, bytes: [3], app: 2), .message([3], app: 2), "it starts over")
    }

    func testTheLifecycleDeliversAppDataUnderItsNumberAndRefusesNumberZero() {
        var lifecycle = SessionLifecycle(inviteeAt: Date(timeIntervalSince1970: 0), limits: SessionLifecycle.Limits())
        _ = lifecycle.handshakeCompleted(remotePeerID: String(repeating: "a", count: 32), expectedPeerID: nil, now: Date(timeIntervalSince1970: 0))
        _ = lifecycle.received(.invite(name: "x", context: [], timeoutMilliseconds: 1000), now: Date(timeIntervalSince1970: 0))
        _ = lifecycle.decided(accept: true, now: Date(timeIntervalSince1970: 0))
        XCTAssertEqual(lifecycle.received(.app(.data(number: 3, more: false, bytes: [9])), now: Date(timeIntervalSince1970: 1)), [.deliverApp(3, [9])])
        XCTAssertEqual(lifecycle.received(.data(more: false, bytes: [8]), now: Date(timeIntervalSince1970: 1)), [.deliver([8])])
        let zero = lifecycle.received(.app(.data(number: 0, more: false, bytes: [1])), now: Date(timeIntervalSince1970: 1))
        XCTAssertEqual(zero.last, .finish(.protocolError, "appData under number 0"))
    }
}
