import Dispatch
import FoundationEssentials
import CMalloc
import Glibc
import PeerCore
import PeerProtocol

/// Sessions: accepts connections on the session port, dials peers, keeps
/// at most one session per peer, and routes what each ``PeerSession``
/// reports to the component that owns it: who the session is to
/// ``SessionAdoption`` (identity, session limits, the crossing rule,
/// docs/protocol.md §6), its end to ``SessionAftermath``, invitations to
/// ``InvitationDesk``, pairing to ``PairingCoordinator``, messages to
/// ``InboxBook`` (each app's inbox), the apps' flow to ``AppDesk`` and
/// the queues, acknowledgements to ``QueuedDelivery``, states to
/// ``PeerDirectory``.
@MainActor
package final class SessionDirector: PeerSessionDelegate, SessionAdoptionDelegate {
    private let config: DaemonConfiguration
    /// The daemon's log.
    let logger: Logger
    /// The control socket: its subscribers decide invitations.
    let control: ControlServer
    private let acceptor: SessionAcceptor
    /// This host's own service: its name is in `busy` words.
    let discovery: DiscoveryCoordinator
    /// The peer rows and their states.
    let directory: PeerDirectory
    private let pairing: PairingCoordinator
    /// The trust store: who is paired, who is accepted without asking.
    let trust: TrustDesk
    /// The invitations waiting for a client.
    let invitations: InvitationDesk
    /// Dialling paired peers again (held back after a `busy`).
    let reconnect: ReconnectController
    /// `send --queue` messages on disk until acknowledged.
    let queued: QueuedDelivery
    /// The inboxes: where messages no client takes wait.
    let inboxes: InboxBook
    /// This host's apps: which it keeps, and its list for peers.
    let apps: AppDesk
    /// Each app's state with each peer.
    let appSessions: AppSessions
    /// Numbers and sends an event.
    let emit: @MainActor (ControlEvent) -> Void
    /// The one clock.
    let clock: DaemonClock

    /// Every session, and the one that counts for each peer.
    package let table: SessionTable
    /// Holds the flow of messages back while a subscriber is behind.
    package let hold: SubscriberFlowHold
    /// Makes the sessions (accepted and dialled) and applies the session limits.
    package let opener: SessionOpener
    /// Who a session is, once its peer proved its key.
    private let adoption: SessionAdoption
    /// What follows a session's end.
    private let aftermath: SessionAftermath
    /// `add` requests waiting for their dial to prove its peer.
    package let addressDials = AddressDials()
    /// Files and streams: told of sessions and handed their bulk messages.
    let bulk: any BulkRoom
    /// The features that plug into the sessions (``SessionFeatures``):
    /// told of each session's life, messages, acknowledgements and room
    /// (internal for `SessionDirector+Messages.swift`).
    let features: SessionFeatures

    /// A director over the daemon's components; `emit` numbers and sends an event.
    init(config: DaemonConfiguration, logger: Logger, identityKey: IdentityKey, identity: IdentityActor, lane: IdentityLane,
                control: ControlServer, table: SessionTable, sessionListener: TCPListener, discovery: DiscoveryCoordinator, directory: PeerDirectory, pairing: PairingCoordinator, trust: TrustDesk,
                invitations: InvitationDesk, reconnect: ReconnectController, queued: QueuedDelivery, inboxes: InboxBook, apps: AppDesk,
                appSessions: AppSessions, bulk: any BulkRoom, features: SessionFeatures, emit: @escaping @MainActor (ControlEvent) -> Void, clock: DaemonClock = .system) {
        self.apps = apps
        self.appSessions = appSessions
        self.bulk = bulk
        self.features = features
        self.clock = clock
        self.config = config
        self.logger = logger
        self.control = control
        self.table = table
        self.discovery = discovery
        self.directory = directory
        self.pairing = pairing
        self.trust = trust
        self.invitations = invitations
        self.reconnect = reconnect
        self.queued = queued
        self.inboxes = inboxes
        self.emit = emit
        hold = SubscriberFlowHold(control: control, table: table, queueBytes: config.subscriberQueueBytes)
        let opener = SessionOpener(config: config, identityKey: identityKey, table: table, trust: trust, features: features, logger: logger, clock: clock,
                                   name: { [discovery] in discovery.name })
        self.opener = opener
        acceptor = SessionAcceptor(listener: sessionListener, rate: config.connectionRate,
                                   admission: SessionAdmission(maxSessions: config.maxSessions, maxPending: config.maxPendingHandshakes,
                                                               maxPendingPerAddress: config.maxPendingHandshakesPerAddress),
                                   logger: logger, clock: clock,
                                   knownAddresses: { [directory, trust] in Self.knownAddresses(directory: directory, trust: trust) },
                                   pending: { [table] in table.sessions.filter { $0.role == .invitee && $0.remoteStaticKey == nil && !$0.isClosed } },
                                   accepted: { [opener] connection in opener.accepted(connection) })
        adoption = SessionAdoption(config: config, ownPeerID: identityKey.peerID, identity: identity, lane: lane, discovery: discovery,
                                   directory: directory, trust: trust, opener: opener, table: table, logger: logger, emit: emit,
                                   clock: clock)
        aftermath = SessionAftermath(identity: identity, lane: lane, directory: directory, opener: opener, table: table, queued: queued,
                                     reconnect: reconnect, logger: logger, emit: emit, clock: clock)
        // The director's parts report to it from here on: the sessions the
        // opener makes, and what adoption comes to.
        opener.delegate = self
        adoption.delegate = self
    }

    /// Starts accepting connections on the session port.
    package func start() {
        acceptor.start()
    }

    /// An incoming session became its peer's current one: an invitation
    /// that came before its row (still awaiting a decision, and nobody
    /// asked about it) is decided now.
    package func sessionAdopted(_ session: PeerSession) {
        guard session.phase == .awaitingDecision, !invitations.isAsking(session), !appSessions.isAsking(session),
              let invitation = session.receivedInvitation else { return }
        sessionNeedsDecision(session, name: invitation.name, context: invitation.context, timeoutSeconds: invitation.timeoutSeconds,
                             pairing: invitation.pairing)
    }

    /// An `add` dial proved its peer.
    package func session(_ session: PeerSession, provedAddressOf row: PeerSnapshot, existing: Bool) {
        addressDials.proven(session, row: row, existing: existing)
        // The peer may have accepted while its row was being found.
        if !existing, session.isConnected { sessionEstablished(session) }
    }

    /// Closes every session and stops accepting.
    package func stop() {
        acceptor.stop()
        for session in table.sessions { session.close("peerd is stopping") }
    }

    /// Sessions open now (connected or being set up).
    package var count: Int { table.count }

    /// Addresses known peers use: every row's endpoints and paired peers' last addresses.
    private static func knownAddresses(directory: PeerDirectory, trust: TrustDesk) -> Set<String> {
        Set(directory.endpointAddresses + trust.records.flatMap { ($0.addresses ?? []).map(\.address) })
    }
}

// MARK: - Sessions

extension SessionDirector {

    private func setState(_ state: ConnectionState, for peer: UUID, reason: CloseReason?, detail: String? = nil) {
        directory.setState(state, for: peer, reason: reason, detail: detail)
    }

    /// Once a second: every session's clock, held flows, crossings that
    /// never came, queued messages for connected peers, and the addresses
    /// of connected paired peers (a resolve may have changed them; the
    /// trust store is written only when they did).
    package func tick(now: Date) {
        for session in table.sessions { session.tick(now: now) }
        table.tickClosing(now: now)
        hold.tick(now: now)
        appSessions.tick(now: now)
        for peer in table.expiredCrossings(now: now) where table[peer] == nil {
            setState(.notConnected, for: peer, reason: .closedByPeer)
        }
        for peer in table.peers {
            drainQueue(for: peer)
            rememberAddresses(of: peer)
        }
    }

    // MARK: PeerSessionDelegate

    /// The remote proved its key: who it is (``SessionAdoption``).
    package func sessionAuthenticated(_ session: PeerSession, peerID: String) {
        adoption.authenticated(session, peerID: peerID)
    }

    /// The invitee side must ask a client.
    package func sessionNeedsDecision(_ session: PeerSession, name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool) {
        // Before its row is known the decision waits: adoption asks it
        // again (``sessionAdopted(_:)``).
        guard let peer = session.peerUUID, table.isCurrent(session) else { return }
        if let mismatch = trust.violation(by: session, claimedName: name) {
            adoption.refuse(session, mismatch: mismatch)
            return
        }
        adoption.learned(session, name: name)
        // A session asked for on behalf of an app: that app's rules decide.
        if let app = session.admission, let invitation = session.receivedInvitation {
            return appSessions.hostInvited(session, peer: peer, app: app, context: invitation.context, timeoutSeconds: invitation.timeoutSeconds)
        }
        let paired = trust.isPaired(session.remotePeerID)
        invitations.arrived(session, peer: peer, name: name, context: context, timeoutSeconds: timeoutSeconds,
                            facts: .init(wanted: session.autoAccept, policyAccepts: trust.acceptsAutomatically(session.remotePeerID), pairing: pairing,
                                         paired: paired, subscribers: control.subscriberCount),
                            now: clock.now())
    }

    /// Connected.
    package func sessionEstablished(_ session: PeerSession) {
        guard let peer = session.peerUUID, table.isCurrent(session) else { return }
        invitations.settled(session)
        if let hello = session.remoteHello { directory.heard(hello, from: peer) }
        // A session opened to pair is not a connection clients can use: the
        // row stays `connecting` until the pairing ends it.
        if session.isForPairing {
            pairing.connected(session)
            return
        }
        // A peer known only by its key (added by address, say) takes the
        // name it accepted with, until mDNS or a pairing names it; the
        // address the session reached is kept on the row.
        adoption.learned(session, name: session.acceptedName)
        setState(.connected, for: peer, reason: nil)
        reconnect.connected(peer)
        rememberAddresses(of: peer)
        session.sendAppList(apps.names)
        appSessions.sessionUp(session)
        if let peerID = session.remotePeerID {
            for app in queued.apps(for: peerID) { appSessions.inviteForQueue(peer, app: app) }
        }
        drainQueue(for: peer)
        pairing.connected(session)
        bulk.sessionUp(session)
        features.sessionUp(session)
    }


    /// Transfers and streams are the data plane's.
    package func session(_ session: PeerSession, bulk message: BulkMessage, app: AppName) {
        guard let peer = session.peerUUID, table.isCurrent(session) else { return }
        // An app's flow opens only for an app kept here and connected with the peer.
        if let refusal = AppFlowAdmission.refusal(of: message, app: app, kept: apps.keeps(app),
                                                  connected: appSessions.state(peer, app) == .connected) {
            return session.sendBulk(refusal)
        }
        bulk.session(session, bulk: message, app: app)
    }

    /// File and stream bytes are the data plane's.
    package func session(_ session: PeerSession, data head: BulkDataHead, bytes: UnsafeRawBufferPointer) {
        guard session.peerUUID != nil, table.isCurrent(session) else { return }
        bulk.session(session, data: head, bytes: bytes)
    }

    /// Room for bulk frames: the data plane sends more.
    package func sessionCanSendBulk(_ session: PeerSession) {
        guard table.isCurrent(session) else { return }
        features.room(on: session)
        bulk.sessionCanSendBulk(session)
    }

    /// The session ended: out of the table, and its aftermath
    /// (``SessionAftermath``) follows.
    package func sessionFinished(_ session: PeerSession, reason: CloseReason, text: String) {
        let wasCurrent = table.remove(session)
        if wasCurrent { bulk.sessionDown(session) }
        features.sessionDown(session, wasCurrent: wasCurrent)
        // The apps' states end with the peer's session (or the dial that
        // was to open it, for app invitations waiting on it).
        if let peer = session.peerUUID, wasCurrent || table[peer] == nil { appSessions.sessionDown(peer, reason: reason, text: text) }
        // A session leaves free pages behind (what it queued, read and
        // decoded, in whichever thread's arena): hand them back on the next
        // turn, once the session is let go. Trimmed here, its buffers were
        // still held (issue 42, point 1: a session that had brought 8
        // offers left 4 MB behind under load). A trim of a tidy heap is cheap.
        DispatchQueue.main.async { malloc_trim(0) }
        invitations.settled(session)
        addressDials.ended(session, reason: reason, text: text)
        logger.debug("session \(session.number) with \(session.remoteAddress) ended: \(reason.rawValue): \(text)")
        aftermath.ended(session, reason: reason, text: text, wasCurrent: wasCurrent)
    }
}

// MARK: - Pairing, trust and queued delivery

extension SessionDirector {
    /// The peer's current session, if any.
    package func session(for peer: UUID) -> PeerSession? { table[peer] }

    /// Whether our dial to the peer lost the crossing rule and its winning
    /// connection is awaited.
    package func isAwaitingCrossing(_ peer: UUID) -> Bool { table.isAwaitingCrossing(peer) }

    /// Hands queued messages to a connected peer's session, oldest first,
    /// as far as its send queue takes them; the rest wait for the next tick.
    package func drainQueue(for peer: UUID) {
        guard let session = table[peer] else { return }
        queued.drain(to: session, peer: peer, name: directory.row(peer)?.name ?? session.remotePeerID ?? "peer", apps: appSessions.connectedApps(peer),
                     withDefault: session.carriesDefault)
    }

    /// The peer acknowledged messages: clients hear it (`delivered`), and
    /// queued ones it has are off the disk.
    package func session(_ session: PeerSession, acknowledged count: UInt64) {
        if let peer = session.peerUUID, count > 0 {
            emit(ControlEvent(seq: 0, type: .delivered, time: clock.now(), peer: directory.row(peer), delivery: DeliveryInfo(session: session.number, through: count)))
        }
        guard let peer = session.peerUUID, table.isCurrent(session), let peerID = session.remotePeerID else { return }
        features.acknowledged(count, on: session)
        queued.acknowledged(count, peer: peer, peerID: peerID)
    }

    /// Keeps a paired peer's current addresses in the trust store.
    /// Only endpoints at the address of the live, authenticated session are
    /// kept: an address someone merely advertised for the peer proves nothing.
    private func rememberAddresses(of peer: UUID) {
        guard let row = directory.row(peer), let session = table[peer] else { return }
        trust.rememberAddresses(of: row, session: session)
    }

    /// The peer asks to pair.
    package func sessionPairingRequested(_ session: PeerSession) {
        pairing.requested(on: session, now: clock.now())
    }

    /// A pairing step.
    package func session(_ session: PeerSession, pairing action: PairingAction) {
        pairing.perform(action, on: session, now: clock.now())
    }

    /// The peer removed its trust in us: remove ours, and end a dial made
    /// on it (``trustEnded(for:)``).
    package func sessionUnpaired(_ session: PeerSession) {
        trust.unpairedByPeer(session) { [weak self] peer in self?.trustEnded(for: peer) }
    }
}
