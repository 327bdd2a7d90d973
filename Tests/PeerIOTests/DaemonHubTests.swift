import FoundationEssentials
import Glibc
import PeerCore
import PeerKit
import PeerProtocol
import PeerSystem
import XCTest
@testable import PeerIO

/// The daemon hub's components, each asked directly while two whole
/// daemons run on loopback (``LoopbackLab``; issue 43, point 4): what a
/// client sees through PeerKit must match what the component that owns
/// it holds, and a component's own entry point must do what the control
/// method that calls it does.
@MainActor
final class DaemonHubTests: LoopbackLabTestCase {
    /// `host`'s own peer id.
    private func peerID(_ host: LoopbackLab.Host) throws -> String {
        try IdentityKey.loadOrCreate(in: host.state).key.peerID
    }

    /// The `ChannelDesk` among `host`'s features.
    private func channelDesk(_ host: LoopbackLab.Host) throws -> ChannelDesk {
        try XCTUnwrap(host.daemon.features.all.lazy.compactMap { $0 as? ChannelDesk }.first, "channels are a registered feature")
    }

    /// The session table (`SessionTable`, the director's) holds one current
    /// session for a connected peer, at its loopback address, and the
    /// `SessionRequests` entry point behind `disconnect` ends it there.
    func testTheSessionTableHoldsTheConnectedPeerUntilSessionRequestsEndsIt() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let director: SessionDirector = try XCTUnwrap(alpha.daemon.director)
        let table: SessionTable = director.table
        XCTAssertEqual(director.count, 1)
        XCTAssertTrue(director.session(for: bravoRow.id) === table.current.first, "the director's session is the table's")
        XCTAssertNil(director.session(for: UUID()), "no session for a peer never seen")
        XCTAssertFalse(director.isAwaitingCrossing(bravoRow.id))
        XCTAssertEqual(table.peers, [bravoRow.id])
        XCTAssertEqual(table.current.count, 1)
        XCTAssertTrue(table.hasSession(bravoRow.id))
        XCTAssertEqual(table.liveAddress(bravoRow.id)?.hasPrefix("127.0.0.1"), true, "\(table.liveAddress(bravoRow.id) ?? "none")")
        let session = try XCTUnwrap(table.current.first)
        XCTAssertTrue(table.isCurrent(session))
        XCTAssertEqual(session.remotePeerID, try peerID(bravo))

        let requests: SessionRequests = try XCTUnwrap(alpha.daemon.requests)
        guard case .success(let result) = requests.disconnect(bravoRow) else { return XCTFail("disconnect refused") }
        XCTAssertEqual(result.peer.id, bravoRow.id)
        let gone = try await lab.eventually { !table.hasSession(bravoRow.id) }
        XCTAssertTrue(gone, "the session stayed in the table")
        XCTAssertFalse(table.contains(session))
        XCTAssertEqual(director.count, 0)
        let client = try await lab.client(alpha)
        let state = try await client.peer(bravoRow.id).state
        XCTAssertEqual(state, .notConnected, "the row follows the table")
    }

    /// `InvitationDesk` holds an invitation while a client may decide, and
    /// its own `answer` (what `accept` calls) lets the session in.
    func testTheInvitationDeskHoldsAnInvitationAndItsAnswerLetsTheSessionIn() async throws {
        let alpha = try lab.start("alpha")
        let bravo = try lab.start("bravo") { $0.autoAccept = .none }
        let events = try await lab.subscriber(bravo)
        defer { events.cancel() }
        let bravoRow = try await lab.add(alpha, bravo)
        let desk: InvitationDesk = bravo.daemon.invitations
        let asked = try await lab.eventually { desk.waiting.count == 1 }
        XCTAssertTrue(asked, "bravo's desk never held the invitation")
        let waiting = try XCTUnwrap(desk.waiting.first)
        XCTAssertEqual(waiting.name, "alpha")
        guard case .success(let answered) = desk.answer(String(waiting.id.prefix(8)), accept: true) else { return XCTFail("answer refused") }
        XCTAssertEqual(answered.id, waiting.id)
        XCTAssertTrue(desk.waiting.isEmpty, "answered: nothing left to decide")
        let alphaClient = try await lab.client(alpha)
        let connected = try await lab.eventually { try await alphaClient.peer(bravoRow.id).state == .connected }
        XCTAssertTrue(connected, "accepted by the desk, alpha's session is up")
        // The trust desk pairs no one by an accepted invitation alone.
        XCTAssertFalse(bravo.daemon.trust.isPaired(try peerID(alpha)))
    }

    /// An offer no policy accepts waits in `IncomingTransfers` (one
    /// `IncomingTransfer`, offered) while `OutgoingTransfers` lists it as
    /// live on the sender; the sender's cancel clears both.
    func testAnOfferWaitsInBothTransferDesksAndACancelClearsThem() async throws {
        let alpha = try lab.start("alpha")
        let bravo = try lab.start("bravo") { $0.autoAccept = .paired }
        let events = try await lab.subscriber(bravo)
        defer { events.cancel() }
        _ = try await lab.add(alpha, bravo)
        let invited = try await lab.eventually { bravo.daemon.invitations.waiting.count == 1 }
        XCTAssertTrue(invited)
        let invitation = try XCTUnwrap(bravo.daemon.invitations.waiting.first)
        _ = bravo.daemon.invitations.answer(invitation.id, accept: true)
        let alphaClient = try await lab.client(alpha)
        let rows = try await alphaClient.peers()
        let bravoRow = try XCTUnwrap(rows.first { $0.name == "bravo" })
        let connected = try await lab.eventually { try await alphaClient.peer(bravoRow.id).state == .connected }
        XCTAssertTrue(connected)

        let path = alpha.root + "/held.bin"
        XCTAssertTrue(FileManager.default.createFile(atPath: path, contents: Data(repeating: 7, count: 4096)))
        let transfer = try await alphaClient.sendFile(path, to: bravoRow.id)
        let incoming: IncomingTransfers = bravo.daemon.transfers.incoming
        let held = try await lab.eventually { incoming.incoming.count == 1 }
        XCTAssertTrue(held, "bravo never held the offer")
        let offer: IncomingTransfer = try XCTUnwrap(incoming.incoming.values.first)
        XCTAssertEqual(offer.state, .offered, "unpaired, so no policy takes it: a client decides")
        let outgoing: OutgoingTransfers = alpha.daemon.transfers.outgoing
        XCTAssertEqual(outgoing.live(files: .none).map(\.id), [transfer.started.id])
        let sending: OutgoingTransfer = try XCTUnwrap(outgoing.outgoing.values.first)
        XCTAssertEqual(sending.peer, bravoRow.id)
        XCTAssertEqual(sending.flow, offer.flow, "one transfer id on both hosts")
        XCTAssertTrue(outgoing.owns(sending.flow, peer: bravoRow.id))
        XCTAssertFalse(outgoing.owns(sending.flow, peer: UUID()))

        _ = try await transfer.cancel()
        XCTAssertTrue(outgoing.live(files: .none).isEmpty, "the sender let it go")
        let cleared = try await lab.eventually { incoming.incoming.isEmpty }
        XCTAssertTrue(cleared, "the receiver let it go too")
    }

    /// `ChannelDesk` holds one `MessageChannel` while a client's channel is
    /// open, and none once it closed.
    func testTheChannelDeskHoldsAChannelWhileItIsOpen() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let desk = try channelDesk(alpha)
        XCTAssertEqual(desk.count, 0)
        let channel = try await lab.client(alpha).channel(to: bravoRow.id)
        let opened = try await lab.eventually { desk.count == 1 }
        XCTAssertTrue(opened, "the desk never held the channel")
        XCTAssertNotNil(desk.session(bravoRow.id), "the desk reaches the peer's current session")
        let held: MessageChannel = try XCTUnwrap(desk.defaults[bravoRow.id], "the default app's channel, by peer")
        XCTAssertEqual(held.peer, bravoRow.id)
        _ = try await channel.close()
        let closed = try await lab.eventually { desk.count == 0 }
        XCTAssertTrue(closed, "the desk kept a closed channel")
        XCTAssertEqual(try channelDesk(bravo).count, 0, "bravo opened none")
    }

    /// `DatagramDesk` has its UDP port, knows each connected peer's path,
    /// and its own `send` (what `datagram` calls) carries a datagram in the
    /// session when asked to fall back.
    func testTheDatagramDeskKnowsThePathAndSendsInTheSession() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let desk: DatagramDesk = alpha.daemon.datagrams
        XCTAssertNotEqual(desk.port, 0, "the desk holds a UDP socket")
        let info = try XCTUnwrap(desk.info(for: bravoRow.id), "a connected peer has a datagram path")
        XCTAssertTrue(DatagramPath.State(rawValue: info.path) != nil, "a path state the docs name: \(info.path)")
        var result = PeerResult(peer: bravoRow)
        desk.describe(&result)
        XCTAssertEqual(result.datagrams?.path, info.path, "what `peer` shows is the desk's")

        let bravoClient = try await lab.client(bravo)
        let datagrams = try await bravoClient.datagrams()
        let holding = try await lab.eventually { try await bravoClient.status().datagrams?.receivers ?? 0 >= 1 }
        XCTAssertTrue(holding)
        let sent = Array("desk".utf8).withUnsafeBytes { desk.send(to: bravoRow, app: .none, $0, fallback: true) }
        guard case .success(let outcome) = sent else { return XCTFail("send refused: \(sent)") }
        XCTAssertTrue(outcome.sent, "\(outcome)")
        let arrived = try await datagrams.receive()
        XCTAssertEqual(arrived?.data, Array("desk".utf8))
    }

    /// `AppSessions` holds each app's state with each peer: connected once
    /// the app's invitation was accepted, for that app alone.
    func testAppSessionsHoldsAnAppsStateWithAPeer() async throws {
        let alpha = try lab.start("alpha")
        let bravo = try lab.start("bravo") { $0.appAutoAccept[try! AppName("chat")] = .all }
        let bravoRow = try await lab.connect(alpha, to: bravo)
        // bravo's client holds its registration: it must live to the end.
        let (alphaChat, bravoChat) = try await lab.registered("chat", on: alpha, bravo)
        defer { withExtendedLifetime(bravoChat) {} }
        let chat = try AppName("chat")
        let desk: AppDesk = alpha.daemon.apps
        XCTAssertEqual(desk.names, ["chat"], "registered, and published by the desk")
        XCTAssertTrue(desk.hasClients(chat))
        XCTAssertFalse(desk.hasClients(try AppName("other")))
        let sessions: AppSessions = alpha.daemon.appSessions
        XCTAssertNotEqual(sessions.state(bravoRow.id, chat), .connected)
        _ = try await alphaChat.invite(bravoRow.id, app: "chat")
        let connected = try await lab.eventually { sessions.state(bravoRow.id, chat) == .connected }
        XCTAssertTrue(connected, "chat never connected in alpha's AppSessions")
        XCTAssertTrue(sessions.connectedApps(bravoRow.id).contains(chat))
        XCTAssertFalse(sessions.connectedApps(bravoRow.id).contains(try AppName("other")))
        let shown = try await alphaChat.peers(app: "chat").first?.state
        XCTAssertEqual(shown, .connected, "what the client sees is AppSessions' state")
    }

    /// A message no client takes lands in `InboxBook`'s main inbox, and
    /// the inbox counts it.
    func testAMessageNoClientTakesWaitsInTheInboxBook() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let book: InboxBook = bravo.daemon.inboxes
        XCTAssertEqual(book.main.count, 0)
        _ = try await lab.client(alpha).send(Array("for later".utf8), to: bravoRow.id)
        let kept = try await lab.eventually { book.main.count == 1 }
        XCTAssertTrue(kept, "the message never reached bravo's inbox")
        XCTAssertEqual(book.main.bytes >= 9, true)
        XCTAssertEqual(book.all.first?.count, 1, "the main inbox comes first")
        let inbox = try await lab.call(bravo, .inbox, ControlParams())
        XCTAssertEqual(inbox.count, 1, "what `inbox` shows is the book's")
    }

    /// `PairingCoordinator` holds a pairing on both hosts while it runs:
    /// the initiator shows the code, the other waits for it; its own
    /// `accept` with the code (what `pairAccept` calls) pairs them, and
    /// each `TrustDesk` then holds the other's record.
    func testThePairingCoordinatorsPairTwoDaemonsByTheCode() async throws {
        let (alpha, bravo) = (try lab.start("alpha"), try lab.start("bravo"))
        let bravoRow = try await lab.connect(alpha, to: bravo)
        let events = try await lab.subscriber(bravo)
        defer { events.cancel() }
        let (alphaID, bravoID) = (try peerID(alpha), try peerID(bravo))
        let (alphaTrust, bravoTrust): (TrustDesk, TrustDesk) = (alpha.daemon.trust, bravo.daemon.trust)
        XCTAssertFalse(alphaTrust.isPaired(bravoID))
        XCTAssertNil(bravoTrust.record(peerID: alphaID))

        _ = try await lab.call(alpha, .pair, ControlParams(peer: bravoRow.id.uuidString))
        let (initiator, responder): (PairingCoordinator, PairingCoordinator) = (alpha.daemon.pairing, bravo.daemon.pairing)
        let both = try await lab.eventually { initiator.inProgress.count == 1 && responder.inProgress.count == 1 }
        XCTAssertTrue(both, "alpha \(initiator.inProgress), bravo \(responder.inProgress)")
        let shown = try XCTUnwrap(initiator.inProgress.first)
        XCTAssertTrue(shown.initiator)
        let code = try XCTUnwrap(shown.code, "the initiator shows the code")
        let asked = try XCTUnwrap(responder.inProgress.first)
        XCTAssertFalse(asked.initiator)
        XCTAssertNil(asked.code, "the other host never shows it")

        var answer: Result<PeerSnapshot, ControlError>?
        responder.accept(asked.id, code: code) { answer = $0 }
        let answered = try await lab.eventually { answer != nil }
        XCTAssertTrue(answered)
        guard case .success(let row)? = answer else { return XCTFail("\(String(describing: answer))") }
        XCTAssertEqual(row.name, "alpha")
        let paired = try await lab.eventually { alphaTrust.isPaired(bravoID) && bravoTrust.isPaired(alphaID) }
        XCTAssertTrue(paired, "each trust desk holds the other's record")
        XCTAssertEqual(bravoTrust.records.map(\.peerId), [alphaID])
        XCTAssertEqual(bravoTrust.record(peerID: alphaID)?.name, "alpha")
        XCTAssertTrue(bravoTrust.acceptsAutomatically(alphaID), "a paired peer is let in by the default policy")
        XCTAssertTrue(initiator.inProgress.isEmpty && responder.inProgress.isEmpty, "done, nothing in progress")
    }

    /// `DiscoveryCoordinator` owns the name and Avahi's state; `status`
    /// shows the coordinator's, whatever avahi-daemon is doing here.
    func testStatusShowsTheDiscoveryCoordinatorsNameAndAvahiState() async throws {
        let alpha = try lab.start("alpha")
        let discovery: DiscoveryCoordinator = alpha.daemon.discovery
        XCTAssertEqual(discovery.requestedName, "alpha")
        let status = try await lab.client(alpha).status()
        XCTAssertEqual(status.name, discovery.name)
        XCTAssertEqual(status.avahi, discovery.avahiStatus)
        XCTAssertEqual(status.avahiMessage, discovery.statusMessage)
    }
}
