import FoundationEssentials
import PeerCore
import PeerSystem
import XCTest
@testable import PeerIO
import PeerProtocol

/// A session as a feature sees it, with nothing behind it: what was sent
/// and held is kept for the test to read.
@MainActor
final class FakeFeatureSession: FeatureSession {
    let number: Int
    var peerUUID: UUID? = UUID()
    var remotePeerID: String? = "peer"
    var remoteHello: PeerHello?
    var isConnected = true
    var isForPairing = false
    var carriesDefault = true
    var admission: AppName?
    var queuedBytes = 0
    /// What the feature sent, in order.
    var sent: [WireMessage] = []
    /// Whether reading is held for a channel.
    var held = false

    init(number: Int = 1, features: [String] = WireFeature.allCases.map(\.rawValue)) {
        self.number = number
        remoteHello = PeerHello(release: "0.3.0", names: features)
    }

    func send(feature message: WireMessage) { sent.append(message) }
    func holdReading(_ hold: Bool, for holder: ReadHolds) { held = hold }
    func takeDatagramCiphers() -> (send: DatagramCipher, receive: DatagramCipher)? { nil }
    func datagramAddress(port: UInt16, mapped: Bool) -> DatagramAddress? { nil }
}

/// A feature that records each hook it hears, under its name.
@MainActor
private final class RecordingFeature: SessionFeature {
    let name: String
    let wireFeature: WireFeature?
    let messageTypes: Set<UInt8>
    let controlMethods: Set<ControlMethod>
    /// Whether it takes whole messages (as a channel does).
    var takes = false
    var heard: [String] = []
    /// Shared with the other features: the order hooks ran across them.
    let journal: Journal

    final class Journal { var lines: [String] = [] }

    init(_ name: String, journal: Journal, feature: WireFeature? = nil, types: Set<UInt8> = [], methods: Set<ControlMethod> = []) {
        self.name = name
        self.journal = journal
        wireFeature = feature
        messageTypes = types
        controlMethods = methods
    }

    private func note(_ what: String) { journal.lines.append("\(name) \(what)") }

    func received(type: UInt8, body: [UInt8], on session: any FeatureSession) -> String? {
        note("received 0x\(String(type, radix: 16)) \(body)")
        return body == [0xEE] ? "a bad body" : nil
    }
    func sessionUp(_ session: any FeatureSession) { note("up \(session.number)") }
    func sessionDown(_ session: any FeatureSession, wasCurrent: Bool) { note("down \(session.number) \(wasCurrent)") }
    func deliver(_ message: [UInt8], app: AppName, from session: any FeatureSession) -> Bool {
        note("deliver \(message)")
        return takes
    }
    func acknowledged(_ count: UInt64, on session: any FeatureSession) { note("acknowledged \(count)") }
    func room(on session: any FeatureSession) { note("room") }
    func tick(now: Date) { note("tick") }
    func stop() { note("stop") }
    func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        .error(ControlError(.busy, "\(name) answered"))
    }
}

/// The registry features plug into (issue 43, point 1): who owns which
/// message and method, what a peer that did not announce a feature is
/// told, and that every feature hears each session's life in order.
@MainActor
final class SessionFeaturesTests: XCTestCase {
    func testEachMessageGoesToItsOwnerAndNoOther() async {
        let journal = RecordingFeature.Journal()
        let first = RecordingFeature("first", journal: journal, feature: .datagrams, types: [0x30, 0x31])
        let second = RecordingFeature("second", journal: journal, feature: .once, types: [0x40])
        let features = SessionFeatures([first, second])
        let session = FakeFeatureSession()
        XCTAssertNil(features.received(type: 0x31, body: [1], on: session))
        XCTAssertNil(features.received(type: 0x40, body: [2], on: session))
        XCTAssertEqual(journal.lines, ["first received 0x31 [1]", "second received 0x40 [2]"])
        XCTAssertEqual(features.received(type: 0x30, body: [0xEE], on: session), "a bad body", "the owner's own rules end the session")
    }

    func testAMessageNoFeatureOwnsEndsTheSessionAsAnUnknownType() async {
        let features = SessionFeatures([RecordingFeature("only", journal: .init(), feature: .datagrams, types: [0x30])])
        XCTAssertEqual(features.received(type: 0x77, body: [], on: FakeFeatureSession()), "unknown message type 0x77")
        XCTAssertEqual(SessionFeatures.none.received(type: 0x30, body: [], on: FakeFeatureSession()), "unknown message type 0x30")
    }

    func testAPeerThatDidNotAnnounceTheFeatureIsRefusedBeforeTheOwnerSeesIt() async {
        let journal = RecordingFeature.Journal()
        let features = SessionFeatures([RecordingFeature("dg", journal: journal, feature: .datagrams, types: [0x30])])
        let old = FakeFeatureSession(features: ["files", "streams"])
        XCTAssertEqual(features.received(type: 0x30, body: [], on: old), "a message that needs datagrams, which the peer did not announce")
        XCTAssertEqual(journal.lines, [], "the owner never saw it")
    }

    func testMethodsGoToTheFeatureThatAnswersThem() async {
        let journal = RecordingFeature.Journal()
        let a = RecordingFeature("a", journal: journal, methods: [.channel])
        let b = RecordingFeature("b", journal: journal, methods: [.datagram, .datagrams])
        let features = SessionFeatures([a, b])
        XCTAssertTrue(features.owner(of: .channel) === a)
        XCTAssertTrue(features.owner(of: .datagrams) === b)
        XCTAssertNil(features.owner(of: .status), "the core's methods are the router's")
    }

    func testEveryFeatureHearsTheSessionsLifeInTheOrderListed() async {
        let journal = RecordingFeature.Journal()
        let features = SessionFeatures([RecordingFeature("a", journal: journal), RecordingFeature("b", journal: journal)])
        let session = FakeFeatureSession(number: 7)
        features.sessionUp(session)
        features.acknowledged(3, on: session)
        features.room(on: session)
        features.tick(now: Date(timeIntervalSince1970: 0))
        features.sessionDown(session, wasCurrent: false)
        features.stop()
        XCTAssertEqual(journal.lines, ["a up 7", "b up 7", "a acknowledged 3", "b acknowledged 3", "a room", "b room", "a tick", "b tick",
                                       "a down 7 false", "b down 7 false", "a stop", "b stop"])
    }

    func testAWholeMessageGoesToTheFirstFeatureThatTakesIt() async {
        let journal = RecordingFeature.Journal()
        let a = RecordingFeature("a", journal: journal), b = RecordingFeature("b", journal: journal), c = RecordingFeature("c", journal: journal)
        b.takes = true
        let features = SessionFeatures([a, b, c])
        XCTAssertTrue(features.deliver([9], app: .none, from: FakeFeatureSession()))
        XCTAssertEqual(journal.lines, ["a deliver [9]", "b deliver [9]"], "c never sees a message b took")
        b.takes = false
        XCTAssertFalse(features.deliver([8], app: .none, from: FakeFeatureSession()), "none took it: the inbox's path")
    }
}
