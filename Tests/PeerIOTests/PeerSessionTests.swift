import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerSystem
import PeerProtocol

/// Records what a session reports to its owner.
@MainActor
private final class RecordingOwner: PeerSessionDelegate {
    var authenticated: [String] = []
    var decisions: [String] = []
    var established = 0
    var delivered: [[UInt8]] = []
    var acknowledged: [UInt64] = []
    var finished: [(reason: CloseReason, text: String)] = []
    /// App messages delivered, as "app:text".
    var appDelivered: [String] = []
    /// Apps whose messages this owner refuses (a full inbox).
    var refusing: Set<AppName> = []
    var busy: [(app: AppName, first: UInt64, text: String)] = []
    var ready: [AppName] = []
    var confirmed: [[String]] = []
    /// What the default app's joining handed the owner.
    var joins: [DefaultAppJoin.Action] = []

    func sessionAuthenticated(_ session: PeerSession, peerID: String) { authenticated.append(peerID) }
    func sessionNeedsDecision(_ session: PeerSession, name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool) {
        decisions.append(name)
    }
    func sessionPairingRequested(_ session: PeerSession) {}
    func session(_ session: PeerSession, pairing action: PairingAction) {}
    func session(_ session: PeerSession, acknowledged count: UInt64) { acknowledged.append(count) }
    func sessionUnpaired(_ session: PeerSession) {}
    func sessionEstablished(_ session: PeerSession) { established += 1 }
    func session(_ session: PeerSession, delivered message: [UInt8], app: AppName, tag: QueueTag?) -> DeliveryVerdict {
        if app.isDefault {
            delivered.append(message)
            return .safe
        }
        if refusing.contains(app) { return .appRefused("\(app.text)'s inbox is full") }
        appDelivered.append(app.text + ":" + String(decoding: message, as: UTF8.self))
        return .safe
    }
    func session(_ session: PeerSession, confirmedApps names: [String]) { confirmed.append(names) }
    func session(_ session: PeerSession, appBusy app: AppName, from first: UInt64, text: String) { busy.append((app, first, text)) }
    func session(_ session: PeerSession, appReady app: AppName) { ready.append(app) }
    func session(_ session: PeerSession, join action: DefaultAppJoin.Action) { joins.append(action) }
    func session(_ session: PeerSession, app message: AppMessage) {}
    func session(_ session: PeerSession, bulk message: BulkMessage, app: AppName) {}
    func session(_ session: PeerSession, data head: BulkDataHead, bytes: UnsafeRawBufferPointer) {}
    func sessionCanSendBulk(_ session: PeerSession) {}
    func sessionFinished(_ session: PeerSession, reason: CloseReason, text: String) { finished.append((reason, text)) }
}

/// ``PeerSession`` and its ``SessionTransport`` over loopback TCP, with a
/// recording owner in place of the daemon (issue 21, point 8: the tier
/// between the pure lifecycle tables and the lab). Both ends run on the
/// main queue; no root, no Avahi, no second host.
/// A feature owning type 0x30 (as the datagram path does), keeping what came.
@MainActor
private final class EchoFeature: SessionFeature {
    var wireFeature: WireFeature? { .datagrams }
    var messageTypes: Set<UInt8> { [0x30] }
    var bodies: [[UInt8]] = []
    var sessions: [any FeatureSession] = []
    func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String? {
        bodies.append(body)
        sessions.append(session)
        return nil
    }
}

@MainActor
final class PeerSessionTests: XCTestCase {
    private var listener: TCPListener!

    override func setUp() async throws {
        try Sodium.initialize()
        listener = try TCPListener(port: 0)
    }

    override func tearDown() async throws {
        listener.close()
    }

    private var loopback: Endpoint { Endpoint(interface: "lo", family: .ipv4, address: "127.0.0.1", port: listener.port) }

    private func key() -> IdentityKey { IdentityKey(secretKey: Sodium.randomBytes(32)) }

    /// Waits for `condition`, turning the main queue over, for at most 5 s.
    private func eventually(_ what: String, _ condition: () -> Bool) async throws {
        let deadline = Date().addingTimeInterval(5)
        while !condition() {
            guard Date() < deadline else { return XCTFail("timed out waiting until \(what)") }
            try await Task.sleep(nanoseconds: 2_000_000)
        }
    }

    /// The next connection the listener takes.
    private func accepted() async throws -> FileDescriptor {
        var fd: FileDescriptor?
        try await eventually("a connection arrives") {
            fd = try? listener.accept()
            return fd != nil
        }
        return try XCTUnwrap(fd)
    }

    /// A dialled session (invited for `app`) and the one it reached, accepted and connected.
    private func connectedPair(app: AppName = .none, features: SessionFeatures = .none) async throws
        -> (PeerSession, PeerSession, RecordingOwner, RecordingOwner) {
        let (alpha, bravo) = (key(), key())
        let (dialler, invitee) = (RecordingOwner(), RecordingOwner())
        let a = try PeerSession(number: 1, dialing: loopback, remaining: [], expectedPeerID: bravo.peerID, identity: alpha, name: "alpha",
                                context: [], inviteTimeout: 30, limits: .init(), sendLimit: 1 << 20, app: app, delegate: dialler)
        let b = PeerSession(number: 2, accepted: try await accepted(), identity: bravo, name: "bravo", limits: .init(),
                            sendLimit: 1 << 20, delegate: invitee, features: features)
        try await eventually("the invitee is asked") { invitee.decisions.count == 1 }
        b.decide(accept: true)
        try await eventually("both are connected") { dialler.established == 1 && invitee.established == 1 }
        return (a, b, dialler, invitee)
    }

    /// A feature that plugs in (issue 43, point 1): its message goes
    /// through a real session to it, and a type nobody owns ends the
    /// session as the codec's unknown type did.
    func testAFeaturesMessageReachesItsOwnerAndAnUnownedTypeEndsTheSession() async throws {
        let feature = EchoFeature()
        let (a, b, _, invitee) = try await connectedPair(features: SessionFeatures([feature]))
        a.send(feature: .feature(type: 0x30, body: [1, 2, 3]))
        try await eventually("the feature has it") { feature.bodies.count == 1 }
        XCTAssertEqual(feature.bodies, [[1, 2, 3]])
        XCTAssertTrue(feature.sessions.first === b, "it came with the session it arrived on")
        a.send(feature: .data(more: false, bytes: [9]))
        a.send(feature: .feature(type: 0x77, body: []))
        try await eventually("the invitee ends the session") { !invitee.finished.isEmpty }
        XCTAssertEqual(invitee.delivered, [], "a feature cannot send the core's messages")
        XCTAssertEqual(invitee.finished.first?.reason, .protocolError)
        XCTAssertEqual(invitee.finished.first?.text, "unknown message type 0x77")
    }

    func testHandshakeInvitationMessagesAcknowledgementAndClose() async throws {
        let (alpha, bravo) = (key(), key())
        let (dialler, invitee) = (RecordingOwner(), RecordingOwner())
        let a = try PeerSession(number: 1, dialing: loopback, remaining: [], expectedPeerID: bravo.peerID, identity: alpha, name: "alpha",
                                context: [1, 2], inviteTimeout: 30, limits: .init(), sendLimit: 1 << 20, delegate: dialler)
        let b = PeerSession(number: 2, accepted: try await accepted(), identity: bravo, name: "bravo", limits: .init(),
                            sendLimit: 1 << 20, delegate: invitee)
        try await eventually("the invitee is asked") { invitee.decisions.count == 1 }
        XCTAssertEqual(invitee.authenticated, [alpha.peerID], "the invitee learns who dialled from the handshake")
        XCTAssertEqual(dialler.authenticated, [bravo.peerID])
        XCTAssertEqual(b.receivedInvitation, ReceivedInvitation(name: "alpha", context: [1, 2], timeoutSeconds: 30, pairing: false))
        XCTAssertNil(a.send([1]), "nothing is sent before the invitation is accepted")

        b.decide(accept: true)
        try await eventually("both are connected") { dialler.established == 1 && invitee.established == 1 }
        XCTAssertEqual(a.acceptedName, "bravo", "the accept carries the invitee's name")
        XCTAssertNil(a.send([UInt8](repeating: 0, count: (1 << 20) + 1)), "past the send limit: refused, nothing queued")
        XCTAssertEqual(a.send(Array("hi".utf8)), 1)
        XCTAssertEqual(a.send([UInt8](repeating: 7, count: 100_000)), 2, "a message of many fragments")
        try await eventually("both messages arrive") { invitee.delivered.count == 2 }
        XCTAssertEqual(invitee.delivered, [Array("hi".utf8), [UInt8](repeating: 7, count: 100_000)])
        b.tick(now: Date())   // acknowledgements go in batches, and on the tick
        try await eventually("the dialler hears both acknowledged") { dialler.acknowledged.last == 2 }

        a.close("done here")
        try await eventually("both have finished") { dialler.finished.count == 1 && invitee.finished.count == 1 }
        XCTAssertEqual(dialler.finished.first?.reason, .closedLocally)
        XCTAssertEqual(invitee.finished.first?.reason, .closedByPeer)
        XCTAssertEqual(invitee.finished.first?.text, "done here", "the peer's words come with its close")
    }

    func testADialThatProvesAnotherKeyIsNotAuthenticated() async throws {
        let (alpha, bravo, expected) = (key(), key(), key())
        let (dialler, invitee) = (RecordingOwner(), RecordingOwner())
        let a = try PeerSession(number: 1, dialing: loopback, remaining: [], expectedPeerID: expected.peerID, identity: alpha, name: "alpha",
                                context: [], inviteTimeout: 30, limits: .init(), sendLimit: 1 << 20, delegate: dialler)
        _ = PeerSession(number: 2, accepted: try await accepted(), identity: bravo, name: "bravo", limits: .init(), sendLimit: 1 << 20,
                        delegate: invitee)
        try await eventually("the dialler finishes") { !dialler.finished.isEmpty }
        XCTAssertFalse(a.isAuthenticated, "the key proved is not the one advertised")
        XCTAssertEqual(dialler.established, 0)
        XCTAssertEqual(invitee.decisions, [], "no invitation went to a host that is not the one dialled")
    }

    func testAFrameLongerThanTheHandshakeAllowsEndsTheSessionAsAProtocolError() async throws {
        let owner = RecordingOwner()
        // A plain socket that speaks no Noise: a length far past what a
        // handshake message may be, then bytes.
        let raw = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(raw) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = listener.port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(raw, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        XCTAssertEqual(connected, 0)
        let session = PeerSession(number: 3, accepted: try await accepted(), identity: key(), limits: .init(), sendLimit: 1 << 20,
                                  delegate: owner)
        let junk: [UInt8] = [0xff, 0xff] + [UInt8](repeating: 0x41, count: 64)
        XCTAssertEqual(write(raw, junk, junk.count), junk.count)
        try await eventually("the session ends") { !owner.finished.isEmpty }
        XCTAssertEqual(owner.finished.first?.reason, .protocolError, "\(owner.finished)")
        XCTAssertEqual(owner.authenticated, [], "nothing was proved")
        XCTAssertTrue(session.isClosed)
    }

    func testAPeerThatSaysNothingIsReleaseOneAndIsSentOnlyWhatItSpeaks() async throws {
        let (alpha, bravo) = (key(), key())
        let (old, new) = (RecordingOwner(), RecordingOwner())
        // The dialler says nothing in its handshake, as 0.1.0 did.
        let a = try PeerSession(number: 1, dialing: loopback, remaining: [], expectedPeerID: bravo.peerID, identity: alpha, name: "alpha",
                                context: [], inviteTimeout: 30, limits: .init(), sendLimit: 1 << 20, delegate: old, hello: nil)
        let b = PeerSession(number: 2, accepted: try await accepted(), identity: bravo, name: "bravo", limits: .init(),
                            sendLimit: 1 << 20, delegate: new)
        try await eventually("the invitee is asked") { new.decisions.count == 1 }
        XCTAssertEqual(b.remoteHello, .silent, "an empty payload: release 0.1.0, no features")
        XCTAssertEqual(a.remoteHello, LocalHello.ours, "the new side said its release and features")
        b.decide(accept: true)
        try await eventually("both are connected") { old.established == 1 && new.established == 1 }
        XCTAssertEqual(a.acceptedName ?? "", "", "a peer without accept-name gets the old empty accept")
        XCTAssertEqual([a.blockHash, b.blockHash], [.blake2b, .blake2b], "BLAKE2b-256 on both sides when one announced nothing")
        // The old side sends what it did not announce: the new side ends the session.
        a.sendBulk(.streamOpen(FlowID(bytes: [UInt8](repeating: 3, count: 16))!, name: "x"))
        try await eventually("the new side ends it") { !new.finished.isEmpty }
        XCTAssertEqual(new.finished.first?.reason, .protocolError)
        XCTAssertTrue(new.finished.first?.text.contains("did not announce") ?? false, "\(new.finished)")
    }

    /// Apps over one session (protocol.md §10): the app list confirmed,
    /// each app's messages under its own number, one app refused
    /// (`appBusy`) while another and the default app flow, the refused
    /// ones counted for `ack`, and the app let go again by `appReady` and
    /// `appRetry`.
    /// Feature `sha256-blocks`: both sides of a session agree on the hash,
    /// SHA-256 when both hellos name it (as two daemons on this CPU do).
    func testBothSidesOfASessionAgreeOnTheBlockHash() async throws {
        let (a, b, _, _) = try await connectedPair()
        XCTAssertEqual(a.blockHash, b.blockHash)
        XCTAssertEqual(a.blockHash, Sha256.accelerated ? .sha256 : .blake2b)
    }

    func testAppsShareTheSessionAndOneAppsRefusalHoldsItAlone() async throws {
        let (a, b, dialler, invitee) = try await connectedPair()
        XCTAssertTrue(a.carriesApps)
        let (chat, clip) = (try AppName("chat"), try AppName("clip"))
        b.sendAppList(["chat", "clip"])
        try await eventually("the list is confirmed") { dialler.confirmed == [["chat", "clip"]] }

        invitee.refusing = [clip]
        XCTAssertEqual(a.send(Array("c1".utf8), app: chat), 1)
        XCTAssertEqual(a.send(Array("x1".utf8), app: clip), 2)
        XCTAssertEqual(a.send(Array("x2".utf8), app: clip), 3, "sent before the refusal is heard")
        try await eventually("the sender hears clip refused") { dialler.busy.count == 1 }
        XCTAssertEqual(dialler.busy.first?.app, clip)
        XCTAssertEqual(dialler.busy.first?.first, 2, "from the first refused message on")
        XCTAssertEqual(a.appRefusal(clip), .busy("clip's inbox is full"))
        XCTAssertNil(a.send(Array("x3".utf8), app: clip), "nothing more of clip goes")
        XCTAssertEqual(a.send(Array("c2".utf8), app: chat), 4, "chat still goes")
        XCTAssertEqual(a.send(Array("d".utf8)), 5, "and the default app")
        try await eventually("chat and the default app arrive") { invitee.appDelivered == ["chat:c1", "chat:c2"] && invitee.delivered == [Array("d".utf8)] }
        XCTAssertEqual(invitee.busy.count, 0)
        b.tick(now: Date())
        try await eventually("every message is acknowledged, the refused ones too") { dialler.acknowledged.last == 5 }
        XCTAssertEqual(b.refusedApps, [clip])

        invitee.refusing = []
        b.appHasRoom(clip)
        try await eventually("the sender hears clip has room") { dialler.ready == [clip] }
        XCTAssertNil(a.appRefusal(clip))
        XCTAssertEqual(a.send(Array("x1".utf8), app: clip), 6, "sent again after appRetry")
        try await eventually("clip's message arrives") { invitee.appDelivered.last == "clip:x1" }
        XCTAssertEqual(b.refusedApps, [], "the retry lifted the refusal")
        XCTAssertTrue(dialler.finished.isEmpty && invitee.finished.isEmpty, "the session stayed up throughout")
    }

    /// A session accepted for app chat alone: the default app's data does
    /// not go until the default app invites over it, the invitee decides,
    /// and both sides hear it joined.
    func testTheDefaultAppJoinsASessionAcceptedForAnAppAlone() async throws {
        let (a, b, dialler, invitee) = try await connectedPair(app: try AppName("chat"))
        XCTAssertFalse(a.carriesDefault)
        XCTAssertFalse(b.carriesDefault)
        XCTAssertNil(a.send(Array("d".utf8)), "no default-app data on a session for chat alone")

        a.inviteDefault(context: Array("join?".utf8), timeout: 30)
        try await eventually("the invitee is asked to take the default app") { !invitee.joins.isEmpty }
        XCTAssertEqual(invitee.joins, [.decide(context: Array("join?".utf8), timeoutSeconds: 30)])
        b.decideJoin(accept: true, words: "")
        try await eventually("both hear the default app joined") { dialler.joins == [.joined] && invitee.joins.last == .joined }
        XCTAssertTrue(a.carriesDefault)
        XCTAssertTrue(b.carriesDefault)
        XCTAssertNil(a.admission, "it carries every kind of traffic now")
        XCTAssertEqual(a.send(Array("d".utf8)), 1)
        try await eventually("the default app's message arrives") { invitee.delivered == [Array("d".utf8)] }
        XCTAssertTrue(dialler.finished.isEmpty && invitee.finished.isEmpty, "the session stayed up throughout")
    }
}
