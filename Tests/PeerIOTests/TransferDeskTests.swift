import Foundation
import Glibc
import XCTest
@testable import PeerCore
@testable import PeerIO
import PeerProtocol

/// A session that records what the desk sends: the tier between the pure
/// units and the lab (issue 21, point 8). No socket, no Noise, no root.
@MainActor
private final class FakeBulkSession: BulkSession {
    let peerUUID: UUID?
    let remotePeerID: String?
    var isConnected = true
    var bulkRoom = 1 << 20
    var bulkOnLane = false
    var remoteHello: PeerHello? = LocalHello.ours
    var blockHash = BlockHashKind.blake2b
    private(set) var sent: [BulkMessage] = []
    /// How often the desk asked for turns.
    private(set) var turnsWanted = 0

    init(peer: UUID, peerID: String) {
        peerUUID = peer
        remotePeerID = peerID
    }

    func sendBulk(_ message: BulkMessage) { sent.append(message) }
    func sendBulk(_ message: BulkMessage, lane: Bool) { sent.append(message) }
    /// The app of each flow opening sent, in order.
    private(set) var openedFor: [AppName] = []
    func sendBulk(_ message: BulkMessage, app: AppName) -> Bool {
        sent.append(message)
        openedFor.append(app)
        return true
    }
    let carriesDefault = true
    let admission: AppName? = nil
    func wantsBulkTurn() { turnsWanted += 1 }

    func transmitBulk(capacity: Int, lane: Bool, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int? {
        var frame = [UInt8](repeating: 0, count: capacity)
        guard let count = frame.withUnsafeMutableBytes(write), case .bulk(let message)? = try? WireCodec.decode(Array(frame[0..<count])) else {
            return nil
        }
        sent.append(message)
        return count
    }

    /// What a failed fill reports, run when the test says (a real
    /// session's lane reports it in a later main-actor turn, never inside
    /// the pump that queued it).
    private(set) var droppedReports: [@MainActor @Sendable () -> Void] = []

    /// The lane's work, done at once and in order: a fake has no thread.
    func transmitBulkLater(capacity: Int, cost: Int, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?,
                           dropped: @escaping @MainActor @Sendable () -> Void) -> Bool {
        guard isConnected else { return false }
        var frame = [UInt8](repeating: 0, count: capacity)
        guard let count = frame.withUnsafeMutableBytes(fill) else {
            droppedReports.append(dropped)
            return true
        }
        if capacity > 0, case .bulk(let message)? = try? WireCodec.decode(Array(frame[0..<count])) { sent.append(message) }
        return true
    }

    func sendBulkLater(_ make: @escaping @Sendable () -> BulkMessage?) {
        if let message = make() { sent.append(message) }
    }

    /// Runs the failures reported so far, as the lane's outcomes would.
    func reportDropped() {
        let reports = droppedReports
        droppedReports = []
        for report in reports { report() }
    }
}

/// The rest of the daemon as the desk sees it, with one peer.
@MainActor
private final class FakeSurroundings: TransferSurroundings {
    let peer = UUID()
    let peerID = String(repeating: "ab", count: 16)
    var paired = true
    var live: FakeBulkSession?
    private(set) var events: [(EventKind, TransferInfo)] = []

    func session(for peer: UUID) -> (any BulkSession)? { peer == self.peer ? live : nil }
    func row(_ peer: UUID) -> PeerSnapshot? {
        PeerSnapshot(id: peer, peerId: peerID, name: "alpha", state: .connected, endpoints: [], info: [:], lastSeen: Date(), lost: false)
    }
    func isPaired(_ peerID: String) -> Bool { paired && peerID == self.peerID }
    func hasQuickSave(_ peerID: String) -> Bool { false }
    func deciders(_ app: AppName) -> Int { 0 }
    func transferEvent(_ kind: EventKind, _ info: TransferInfo) { events.append((kind, info)) }
}

/// The transfer desk driven message by message through a fake session: the
/// receiving side of protocol.md §8's worked example, a resume, a new offer
/// under an old id, and messages for unknown flows.
@MainActor
final class TransferDeskTests: XCTestCase {
    private var folder = ""
    private let flow = FlowID(bytes: Array(1...16))!
    private let hello = Array("hello".utf8)

    override func setUp() async throws {
        folder = NSTemporaryDirectory() + "peerd-desk-\(UUID().uuidString.prefix(8))"
        for sub in ["", "/downloads", "/state", "/run"] { mkdir(folder + sub, 0o700) }
    }

    override func tearDown() async throws {
        _ = try? FileManager.default.removeItem(atPath: folder)
    }

    private func desk(_ surroundings: FakeSurroundings, policy: AutoAcceptPolicy = .paired) -> TransferDesk {
        TransferDesk(downloads: folder + "/downloads", stateDirectory: folder + "/state", runtimeDirectory: folder + "/run",
                     offerTimeout: 600, partialLifetime: 604_800, policy: policy, surroundings: surroundings,
                     logger: Logger(level: .error), clock: .system)
    }

    private func offer(_ name: String = "hi.txt", size: Int64 = 5) -> BulkMessage {
        .offer(flow, more: false, totalFiles: 1, totalBytes: UInt64(size),
               files: [OfferedFile(name: Array(name.utf8), size: size, mode: 0o644, mtime: 1_764_460_800)])
    }


    /// The sender's side of a one-block file "hello" (chunk, block,
    /// fileEnd), then waits for the desk's `transferDone`.
    private func sendHello(to desk: TransferDesk, from world: FakeSurroundings, on session: FakeBulkSession,
                           hash: BlockHashKind = .blake2b) async throws {
        hello.withUnsafeBytes { desk.chunk(flow, file: 0, offset: 0, bytes: $0, from: world.peer, on: session) }
        let blockHash = hash.hash(hello)
        desk.session(session, bulk: .block(flow, file: 0, block: 0, hash: blockHash))
        desk.session(session, bulk: .fileEnd(flow, file: 0, hash: hash.hash(blockHash)))
        let done = try await eventually { session.sent.contains(.transferDone(flow)) }
        XCTAssertTrue(done, "no transferDone: \(session.sent)")
    }

    func testAPairedPeersFileArrivesWholeAndInPlace() async throws {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        desk.session(session, bulk: offer())
        XCTAssertEqual(session.sent, [.answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)])],
                       "a paired peer's offer is accepted by policy, from block 0")
        try await sendHello(to: desk, from: world, on: session)
        let landed = folder + "/downloads/alpha/hi.txt"
        XCTAssertEqual(FileManager.default.contents(atPath: landed).map { Array($0) }, hello)
        var info = stat()
        XCTAssertEqual(stat(landed, &info), 0)
        XCTAssertEqual(info.st_mode & 0o777, 0o644)
        XCTAssertTrue(world.events.contains { $0.0 == .transferCompleted && $0.1.id == flow.description })
        XCTAssertNil(desk.acceptances.read(flow), "a finished transfer leaves no acceptance record")
    }

    /// Feature `sha256-blocks` (issue 44): on a session whose hellos both
    /// name it, a received file's hashes are SHA-256; BLAKE2b-256 hashes
    /// there do not match, and the file never lands.
    func testOnASha256SessionTheReceiverChecksSha256Hashes() async throws {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        session.blockHash = .sha256
        world.live = session
        let desk = desk(world)
        desk.session(session, bulk: offer())
        try await sendHello(to: desk, from: world, on: session, hash: .sha256)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/downloads/alpha/hi.txt").map { Array($0) }, hello)
        XCTAssertEqual(BlockHashKind.sha256.hash(hello).map { String(format: "%02x", $0) }.joined(),
                       "2cf24dba5fb0a30e26e83b2ac5b9e29e1b161e5c1fa7425e73043362938b9824", "SHA-256 of hello (protocol.md §8)")

        let other = FlowID(bytes: Array(repeating: 7, count: 16))!
        let wrong = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        wrong.blockHash = .sha256
        world.live = wrong
        desk.session(wrong, bulk: .offer(other, more: false, totalFiles: 1, totalBytes: 5,
                                         files: [OfferedFile(name: Array("b.txt".utf8), size: 5, mode: 0o644, mtime: 0)]))
        hello.withUnsafeBytes { desk.chunk(other, file: 0, offset: 0, bytes: $0, from: world.peer, on: wrong) }
        let blake = Blake2b.hash(hello)
        desk.session(wrong, bulk: .block(other, file: 0, block: 0, hash: blake))
        desk.session(wrong, bulk: .fileEnd(other, file: 0, hash: Blake2b.hash(blake)))
        let refused = try await eventually {
            wrong.sent.contains { if case .cancel(other, .verifyFailed, _) = $0 { true } else { false } }
        }
        XCTAssertTrue(refused, "BLAKE2b hashes on a SHA-256 session: \(wrong.sent)")
        XCTAssertNil(FileManager.default.contents(atPath: folder + "/downloads/alpha/b.txt"))
    }

    func testTheSameOfferOnANewSessionResumesAndOtherFilesAreDecidedAfresh() async throws {
        let world = FakeSurroundings()
        let first = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = first
        let desk = desk(world)
        desk.session(first, bulk: offer(size: 300_000))
        XCTAssertEqual(first.sent.count, 1)
        XCTAssertNotNil(desk.acceptances.read(flow), "the acceptance is recorded in the state directory")
        desk.sessionDown(first)
        world.live = nil

        // The same files on a new session: answered again, accepted.
        let second = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = second
        desk.session(second, bulk: offer(size: 300_000))
        XCTAssertEqual(second.sent, [.answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)])])
        XCTAssertFalse(world.events.contains { $0.0 == .transferFailed }, "a resume ends nothing")

        // Other files under the same id: the held transfer ends, and the
        // new offer is decided afresh (here accepted again by policy).
        desk.session(second, bulk: offer("autorun.sh", size: 7))
        XCTAssertTrue(world.events.contains { $0.0 == .transferFailed && $0.1.detail?.contains("other files") == true },
                      "\(world.events.map { ($0.0, $0.1.detail ?? "") })")
        XCTAssertEqual(second.sent.last, .answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)]))
        let asked = world.events.filter { $0.1.state == .active || $0.1.state == .offered }.last?.1
        XCTAssertEqual(asked?.totalBytes, 7, "the new offer is the one in progress")
    }

    func testAnAppsOfferIsThatAppsToSeeAndDecideAndLandsInItsFolder() async throws {
        let world = FakeSurroundings()
        world.paired = false
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        let chat = try AppName("chat")
        desk.session(session, bulk: offer(), app: chat)
        XCTAssertEqual(session.sent, [], "an unpaired peer's offer waits for a client")
        XCTAssertEqual(world.events.last?.0, .transferOffered)
        XCTAssertEqual(world.events.last?.1.app, "chat", "the event names the app, so only its clients get it")
        let id = flow.description
        // The default app neither sees nor decides it.
        XCTAssertEqual(try desk.list(nil).get().transfers.count, 0)
        XCTAssertEqual(try desk.list(nil, app: chat).get().transfers.map(\.id), [id])
        guard case .failure(let error) = desk.accept(id, files: nil) else { return XCTFail("the default app accepted an app's offer") }
        XCTAssertEqual(error.code, .notFound)
        guard case .failure = desk.cancel(id) else { return XCTFail("the default app cancelled an app's transfer") }
        let accepted = try desk.accept(id, files: nil, app: chat).get()
        XCTAssertEqual(accepted.transfer.directory, folder + "/downloads/.apps/chat/alpha")
        XCTAssertEqual(session.sent, [.answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)])])

        try await sendHello(to: desk, from: world, on: session)
        XCTAssertEqual(FileManager.default.contents(atPath: folder + "/downloads/.apps/chat/alpha/hi.txt").map { Array($0) }, hello)
        XCTAssertFalse(FileManager.default.fileExists(atPath: folder + "/downloads/alpha"), "nothing lands in the default app's folder")
    }

    func testAnOffersPartsComeForOneApp() throws {
        let world = FakeSurroundings()
        world.paired = false
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        let file = OfferedFile(name: Array("a".utf8), size: 1, mode: 0o644, mtime: 1)
        desk.session(session, bulk: .offer(flow, more: true, totalFiles: 2, totalBytes: 2, files: [file]), app: try AppName("chat"))
        desk.session(session, bulk: .offer(flow, more: false, totalFiles: 2, totalBytes: 2, files: [file]))
        XCTAssertEqual(session.sent, [.cancel(flow, reason: .protocolError, text: "a transfer id already in use")],
                       "a later part for another app is refused")
    }

    func testAnUnpairedPeersOfferWaitsForAClient() {
        let world = FakeSurroundings()
        world.paired = false
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        desk.session(session, bulk: offer())
        XCTAssertEqual(session.sent, [], "nobody decided: nothing is answered")
        XCTAssertEqual(desk.list(flow.description).map { $0.transfers.first?.state }, .success(.offered))
    }

    func testMessagesForUnknownFlowsFollowTheStrayRule() {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        let stray = FlowID(bytes: Array(repeating: 9, count: 16))!
        let cancel = BulkMessage.cancel(stray, reason: .protocolError, text: StrayFlowRule.cancelText)
        hello.withUnsafeBytes { desk.chunk(stray, file: 0, offset: 0, bytes: $0, from: world.peer, on: session) }
        XCTAssertEqual(session.sent, [cancel], "a chunk for an unknown flow is cancelled")
        let rows: [BulkMessage] = [
            .answer(stray, more: false, files: []), .block(stray, file: 0, block: 0, hash: [UInt8](repeating: 0, count: 32)),
            .fileEnd(stray, file: 0, hash: [UInt8](repeating: 0, count: 32)),
            .credit(stray, bytes: 10), .transferDone(stray), .cancel(stray, reason: .cancelled, text: ""),
        ]
        for message in rows {
            let before = session.sent.count
            desk.session(session, bulk: message)
            let expected = StrayFlowRule.of(message) == .cancel ? [cancel] : []
            XCTAssertEqual(Array(session.sent[before...]), expected, "\(message)")
        }
    }

    /// A file of `bytes` in the test folder, opened for reading, with its entry.
    private func source(_ name: String, _ bytes: [UInt8]) throws -> (SendFileEntry, FileDescriptor) {
        let path = folder + "/" + name
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(bytes)))
        var info = stat()
        XCTAssertEqual(stat(path, &info), 0)
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        XCTAssertGreaterThanOrEqual(fd, 0)
        return (SendFileEntry(name: name, size: Int64(bytes.count), mode: 0o644, mtime: Int64(info.st_mtim.tv_sec)), FileDescriptor(rawValue: fd))
    }

    func testTheSendingSideOffersSendsWithinCreditAndEndsOnTheReceiversWord() async throws {
        for kind in BlockHashKind.allCases { try await sendingSide(kind) }
    }

    /// The sending side on a session whose hash is `kind`.
    private func sendingSide(_ kind: BlockHashKind) async throws {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        session.blockHash = kind
        world.live = session
        let desk = desk(world)
        let row = try XCTUnwrap(world.row(world.peer))
        let (entry, fd) = try source("note.txt", hello)
        let started = try desk.sendFile(to: row, transfer: nil, entries: [entry], descriptors: [fd], more: false).get()
        let flow = try XCTUnwrap(FlowID(hex: started.transfer.id))
        guard case .offer(flow, false, 1, 5, let files)? = session.sent.first else { return XCTFail("no offer: \(session.sent)") }
        XCTAssertEqual(files.map(\.name), [Array("note.txt".utf8)])
        XCTAssertEqual(desk.sendingFlows(to: world.peer), [], "nothing goes before the answer")

        desk.session(session, bulk: .answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)]))
        XCTAssertEqual(session.turnsWanted, 1, "an accepting answer asks the session for a turn")
        XCTAssertEqual(desk.sendingFlows(to: world.peer), [flow])
        let sent = desk.pump(flow, on: session, limit: .max)
        XCTAssertEqual(sent, hello.count)
        let blockHash = kind.hash(hello)
        XCTAssertEqual(Array(session.sent.dropFirst()), [
            .chunk(flow, file: 0, offset: 0, bytes: hello), .block(flow, file: 0, block: 0, hash: blockHash),
            .fileEnd(flow, file: 0, hash: kind.hash(blockHash)),
        ], "the bytes, the block's hash, and the file's hash of block hashes (\(kind))")

        desk.session(session, bulk: .transferDone(flow))
        XCTAssertTrue(world.events.contains { $0.0 == .transferCompleted && $0.1.id == flow.description })
        XCTAssertEqual(desk.list(flow.description).map { $0.transfers.first?.state }, .success(.completed))
        XCTAssertEqual(desk.sendingFlows(to: world.peer), [])
    }

    /// A read that fails on the session's lane (issue 25, point 2) is
    /// reported on the main actor after the pump that queued it: the
    /// transfer ends both sides, and nothing more of it is sent, neither
    /// the chunks queued after it nor a block's or the file's hash.
    func testAReadThatFailsOnTheLaneEndsTheTransferAndSendsNothingAfterIt() async throws {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        let (entry, fd) = try source("shrinks.bin", [UInt8](repeating: 9, count: 3 * BulkCodec.maxChunk))
        let started = try desk.sendFile(to: try XCTUnwrap(world.row(world.peer)), transfer: nil, entries: [entry], descriptors: [fd], more: false).get()
        let flow = try XCTUnwrap(FlowID(hex: started.transfer.id))
        desk.session(session, bulk: .answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)]))
        XCTAssertEqual(desk.pump(flow, on: session, limit: 1), BulkCodec.maxChunk, "one chunk, checked against the offer")
        // The file shrinks under the transfer after its first chunk.
        XCTAssertEqual(truncate(folder + "/shrinks.bin", 10), 0)
        let before = session.sent.count
        _ = desk.pump(flow, on: session, limit: .max)
        XCTAssertEqual(session.sent.count, before, "nothing after the failed read: \(session.sent.dropFirst(before))")
        XCTAssertEqual(desk.list(flow.description).map { $0.transfers.first?.state }, .success(.active), "not ended before the lane reports")
        session.reportDropped()
        XCTAssertEqual(Array(session.sent.dropFirst(before)), [.cancel(flow, reason: .verifyFailed, text: "shrinks.bin shrank while it was being sent")])
        XCTAssertEqual(desk.list(flow.description).map { $0.transfers.first?.reason }, .success(.verifyFailed))
        XCTAssertEqual(desk.sendingFlows(to: world.peer), [])
    }

    func testCreditPastTheLargestWindowEndsTheSendingSide() async throws {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        world.live = session
        let desk = desk(world)
        let (entry, fd) = try source("big.bin", [UInt8](repeating: 7, count: 64))
        let started = try desk.sendFile(to: try XCTUnwrap(world.row(world.peer)), transfer: nil, entries: [entry], descriptors: [fd], more: false).get()
        let flow = try XCTUnwrap(FlowID(hex: started.transfer.id))
        desk.session(session, bulk: .answer(flow, more: false, files: [FileAnswer(file: 0, verdict: .accepted, firstBlock: 0)]))
        desk.session(session, bulk: .credit(flow, bytes: UInt32(ReceiveWindow.maximum)))
        XCTAssertEqual(session.sent.last, .cancel(flow, reason: .protocolError, text: "credit past the largest window"))
        XCTAssertEqual(desk.list(flow.description).map { $0.transfers.first?.reason }, .success(.protocolError))
    }

    func testAFileTowardAPeerWithoutFilesIsUnsupportedAndNothingIsSent() async throws {
        let world = FakeSurroundings()
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        session.remoteHello = .silent
        world.live = session
        let desk = desk(world)
        let row = try XCTUnwrap(world.row(world.peer))
        let (entry, fd) = try source("a.txt", hello)
        defer { fd.close() }
        guard case .failure(let error) = desk.sendFile(to: row, transfer: nil, entries: [entry], descriptors: [fd], more: false) else {
            return XCTFail("a peer that announced no files took an offer")
        }
        XCTAssertEqual(error.code, .unsupported)
        XCTAssertEqual(error.message, "'alpha' runs peerd 0.1.0, which cannot receive files (no feature 'files'); upgrade it")
        XCTAssertEqual(session.sent, [], "nothing is sent")
        XCTAssertTrue(session.isConnected, "the session stays up")
    }

    func testATransferWaitingForASessionEndsUnsupportedWhenThePeerTakesNoFiles() async throws {
        let world = FakeSurroundings()
        let desk = desk(world)
        let (entry, fd) = try source("later.txt", hello)
        let started = try desk.sendFile(to: try XCTUnwrap(world.row(world.peer)), transfer: nil, entries: [entry], descriptors: [fd], more: false).get()
        XCTAssertEqual(started.transfer.state, .interrupted, "no session yet: it waits")
        let session = FakeBulkSession(peer: world.peer, peerID: world.peerID)
        session.remoteHello = PeerHello(release: "0.1.5", names: ["streams"])
        world.live = session
        desk.sessionUp(session)
        XCTAssertEqual(session.sent, [], "no offer goes to a peer without files")
        let info = try desk.list(started.transfer.id).get().transfers.first
        XCTAssertEqual(info?.state, .failed)
        XCTAssertEqual(info?.reason, .unsupported)
        XCTAssertEqual(info?.detail, "'alpha' runs peerd 0.1.5, which cannot receive files (no feature 'files'); upgrade it")
    }
}
