import Foundation
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// A session that records what the stream desk sends (issue 21, point 8).
@MainActor
private final class RecordingSession: BulkSession {
    let peerUUID: UUID?
    let remotePeerID: String? = String(repeating: "cd", count: 16)
    var isConnected = true
    let bulkRoom = 1 << 20
    let bulkOnLane = false
    var remoteHello: PeerHello? = LocalHello.ours
    var blockHash = BlockHashKind.blake2b
    private(set) var sent: [BulkMessage] = []

    init(peer: UUID) { peerUUID = peer }

    /// How often the desk asked for turns.
    private(set) var turnsWanted = 0

    func sendBulk(_ message: BulkMessage) { sent.append(message) }
    func sendBulk(_ message: BulkMessage, lane: Bool) { sent.append(message) }
    func sendBulk(_ message: BulkMessage, app: AppName) -> Bool {
        sent.append(message)
        return true
    }
    let carriesDefault = true
    let admission: AppName? = nil
    func transmitBulk(capacity: Int, lane: Bool, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? { nil }
    func transmitBulkLater(capacity: Int, cost: Int, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?,
                           dropped: @escaping @MainActor @Sendable () -> Void) -> Bool { false }
    func sendBulkLater(_ make: @escaping @Sendable () -> BulkMessage?) {}
    func wantsBulkTurn() { turnsWanted += 1 }
}

/// One fake session by peer.
@MainActor
private final class FakeSessions: BulkSessions {
    var byPeer: [UUID: RecordingSession] = [:]
    func bulkSession(for peer: UUID) -> (any BulkSession)? { byPeer[peer] }
}

/// The stream desk driven through a fake session: opens that no local
/// program meets, the bound on them, and messages for unknown flows
/// (protocol.md §8, "Streams").
@MainActor
final class StreamDeskTests: XCTestCase {
    private let start = Date(timeIntervalSince1970: 1_000_000)

    private func flow(_ byte: UInt8) -> FlowID { FlowID(bytes: [UInt8](repeating: byte, count: 16))! }

    func testUnmetOpensAreResetAfterTheirWaitAndBoundedPerPeer() async {
        let peer = UUID()
        let session = RecordingSession(peer: peer)
        let sessions = FakeSessions()
        sessions.byPeer[peer] = session
        // Opens are stamped by the desk's clock; the ticks say the time.
        let desk = StreamDesk(sessions: sessions, logger: Logger(level: .error), clock: DaemonClock { [start] in start })
        for index in 0..<StreamDesk.maxRemoteOpens {
            desk.received(.streamOpen(flow(UInt8(index)), name: "s\(index)"), from: peer, on: session)
        }
        XCTAssertEqual(session.sent, [], "up to \(StreamDesk.maxRemoteOpens) opens wait for a local program")
        desk.received(.streamOpen(flow(99), name: "one too many"), from: peer, on: session)
        XCTAssertEqual(session.sent, [.streamReset(flow(99), reason: .busy, text: "too many streams wait here")])

        desk.tick(now: start.addingTimeInterval(StreamDesk.openWait - 1))
        XCTAssertEqual(session.sent.count, 1, "not yet: the wait is \(Int(StreamDesk.openWait)) s")
        desk.tick(now: start.addingTimeInterval(StreamDesk.openWait))
        let resets = session.sent.dropFirst()
        XCTAssertEqual(resets.count, StreamDesk.maxRemoteOpens)
        XCTAssertTrue(resets.allSatisfy { if case .streamReset(_, .unknownName, _) = $0 { true } else { false } }, "\(resets)")
        desk.received(.streamOpen(flow(100), name: "later"), from: peer, on: session)
        XCTAssertEqual(session.sent.count, 1 + StreamDesk.maxRemoteOpens, "the bound frees as the opens go")
    }

    func testAnAppsOpenWaitsApartFromTheDefaultAppsOfTheSameName() async throws {
        let peer = UUID()
        let session = RecordingSession(peer: peer)
        let sessions = FakeSessions()
        sessions.byPeer[peer] = session
        let desk = StreamDesk(sessions: sessions, logger: Logger(level: .error), clock: DaemonClock { [start] in start })
        let chat = try AppName("chat")
        desk.received(.streamOpen(flow(1), name: "sync"), from: peer, on: session)
        desk.received(.streamOpen(flow(2), name: "sync"), app: chat, from: peer, on: session)
        desk.tick(now: start.addingTimeInterval(StreamDesk.openWait))
        // Two opens held, one per app: neither replaced the other.
        XCTAssertEqual(session.sent.count, 2, "\(session.sent)")
        XCTAssertTrue(session.sent.contains(.streamReset(flow(1), reason: .unknownName, text: "no pipe 'sync' here")), "\(session.sent)")
        XCTAssertTrue(session.sent.contains(.streamReset(flow(2), reason: .unknownName, text: "no pipe 'sync' of app 'chat' here")), "\(session.sent)")
    }

    func testMessagesForUnknownStreamsAreIgnored() async {
        let peer = UUID()
        let session = RecordingSession(peer: peer)
        let sessions = FakeSessions()
        sessions.byPeer[peer] = session
        let desk = StreamDesk(sessions: sessions, logger: Logger(level: .error), clock: .system)
        let stray = flow(7)
        for message: BulkMessage in [.streamEnd(stray), .streamReset(stray, reason: .closed, text: ""), .credit(stray, bytes: 10)] {
            XCTAssertEqual(StrayFlowRule.of(message), .ignore)
            desk.received(message, from: peer, on: session)
        }
        Array("bytes".utf8).withUnsafeBytes { desk.data(stray, bytes: $0, from: peer) }
        XCTAssertEqual(session.sent, [], "nothing is answered for a stream this side does not know")
        XCTAssertEqual(session.turnsWanted, 0, "credit for an unknown stream asks for no turn")
    }
}
