import Dispatch
import FoundationEssentials
import CMalloc
import Glibc
import PeerCore

/// Sessions: accepts connections on the session port, dials peers, keeps
/// at most one session per peer (the crossing rule, docs/protocol.md §6),
/// applies the session limits (``SessionAdmission``), and routes what each
/// ``PeerSession`` reports to the component that owns it: invitations to
/// ``InvitationDesk``, pairing to ``PairingCoordinator``, messages to
/// ``InboxDelivery``, acknowledgements to ``QueuedDelivery``, states to
/// ``PeerDirectory``.
@MainActor
public final class SessionDirector: PeerSessionDelegate {
    private let config: DaemonConfiguration
    private let logger: Logger
    private let identityKey: IdentityKey
    private let identity: IdentityActor
    private let lane: IdentityLane
    private let control: ControlServer
    private let acceptor: SessionAcceptor
    private let discovery: DiscoveryCoordinator
    private let directory: PeerDirectory
    private let pairing: PairingCoordinator
    private let invitations: InvitationDesk
    private let reconnect: ReconnectController
    private let queued: QueuedDelivery
    private let inbox: InboxDelivery
    private let emit: @MainActor (ControlEvent) -> Void
    private let clock: DaemonClock

    /// Every session, and the one that counts for each peer.
    public let table = SessionTable()
    /// Holds the flow of messages back while a subscriber is behind.
    public let hold: SubscriberFlowHold
    /// Makes the sessions (accepted and dialled) and applies the session limits.
    public let opener: SessionOpener
    private var refusedAtSessionCap = RefusalCounter()

    /// A director over the daemon's components; `emit` numbers and sends an event.
    public init(config: DaemonConfiguration, logger: Logger, identityKey: IdentityKey, identity: IdentityActor, lane: IdentityLane,
                control: ControlServer, sessionListener: TCPListener, discovery: DiscoveryCoordinator, directory: PeerDirectory, pairing: PairingCoordinator,
                invitations: InvitationDesk, reconnect: ReconnectController, queued: QueuedDelivery, inbox: InboxDelivery,
                emit: @escaping @MainActor (ControlEvent) -> Void, clock: DaemonClock = .system) {
        self.clock = clock
        self.config = config
        self.logger = logger
        self.identityKey = identityKey
        self.identity = identity
        self.lane = lane
        self.control = control
        acceptor = SessionAcceptor(listener: sessionListener, rate: config.connectionRate,
                                   admission: SessionAdmission(maxSessions: config.maxSessions, maxPending: config.maxPendingHandshakes,
                                                               maxPendingPerAddress: config.maxPendingHandshakesPerAddress),
                                   logger: logger, clock: clock)
        self.discovery = discovery
        self.directory = directory
        self.pairing = pairing
        self.invitations = invitations
        self.reconnect = reconnect
        self.queued = queued
        self.inbox = inbox
        self.emit = emit
        hold = SubscriberFlowHold(control: control, queueBytes: config.subscriberQueueBytes)
        opener = SessionOpener(config: config, identityKey: identityKey, table: table, pairing: pairing, logger: logger, clock: clock)
    }

    /// Starts accepting connections on the session port.
    public func start() {
        acceptor.knownAddresses = { [weak self] in self?.knownAddresses ?? [] }
        acceptor.pending = { [weak self] in
            self?.table.sessions.filter { $0.role == .invitee && $0.remoteStaticKey == nil && !$0.isClosed } ?? []
        }
        acceptor.accepted = { [weak self] connection in
            guard let self else { return connection.close() }
            self.opener.accepted(connection)
        }
        opener.delegate = self
        opener.name = { [weak self] in self?.discovery.name ?? "" }
        acceptor.start()
        hold.sessions = { [weak self] in self?.table.sessions ?? [] }
    }

    /// Closes every session and stops accepting.
    public func stop() {
        acceptor.stop()
        for session in table.sessions { session.close("peerd is stopping") }
    }

    /// Sessions open now (connected or being set up).
    public var count: Int { table.count }

    /// Dials a paired peer at `endpoints` (for ``ReconnectController``).
    public func dialPaired(_ peer: UUID, endpoints: [Endpoint], peerID: String) {
        opener.dial(peer, endpoints: opener.dialOrder(endpoints), expected: peerID, context: [], timeout: 30)
    }

    /// A row was found or updated: a connected paired peer's addresses are remembered.
    public func rowChanged(_ row: PeerSnapshot) {
        if row.paired && row.state == .connected { rememberAddresses(of: row.id) }
    }

    /// Rows the identity actor may not evict: paired peers, and peers with a session.
    public var protectedRows: Set<UUID> {
        Set(pairing.records.map(\.uuid)).union(table.sessions.compactMap(\.peerUUID))
    }

    /// Addresses known peers use: every row's endpoints and paired peers' last addresses.
    private var knownAddresses: Set<String> {
        Set(directory.endpointAddresses + pairing.records.flatMap { ($0.addresses ?? []).map(\.address) })
    }
}
// MARK: - Sessions

extension SessionDirector {

    private func setState(_ state: ConnectionState, for peer: UUID, reason: CloseReason?, detail: String? = nil) {
        directory.setState(state, for: peer, reason: reason, detail: detail)
    }

    /// Once a second: every session's clock, held flows, crossings that
    /// never came, and queued messages for connected peers.
    public func tick(now: Date) {
        for session in table.sessions { session.tick(now: now) }
        table.tickClosing(now: now)
        hold.tick(now: now)
        for peer in table.expiredCrossings(now: now) where table[peer] == nil {
            setState(.notConnected, for: peer, reason: .closedByPeer)
        }
        for peer in table.peers { drainQueue(for: peer) }
    }

    // MARK: PeerSessionDelegate

    /// The remote proved its key.
    public func sessionAuthenticated(_ session: PeerSession, peerID: String) {
        if let mismatch = pairing.violation(by: session, claimedName: nil) {
            refuse(session, mismatch: mismatch)
            return
        }
        if session.role == .inviter {
            if let peer = session.peerUUID, table.isCurrent(session) { setState(.connecting, for: peer, reason: nil) }
            lane.submit { [weak self] in
                guard let self else { return }
                await self.identity.markVerified(peerID: peerID)
                await self.discovery.refreshUnverified()
            }
            return
        }
        if peerID == identityKey.peerID {
            session.close("a connection from ourselves", reason: .protocolError)
            return
        }
        if let limit = opener.limitFor(incoming: session, peerID: peerID) {
            if refusedAtSessionCap.record() {
                logger.warning("\(limit); refusing a session from \(peerID) at \(session.remoteAddress) (\(refusedAtSessionCap.count) refused so far)")
            }
            session.close(limit.description, reason: .closedLocally)
            return
        }
        lane.submit { [weak self] in
            guard let self else { return }
            guard let adopted = await self.identity.adopt(peerID: peerID, name: PeerRegistry.placeholderName(for: .peerID(peerID)),
                                                          protected: self.protectedRows) else {
                if self.directory.recordRejected() {
                    self.logger.warning("peer cap (\(self.config.maxPeers)) reached and no row can be evicted; refusing a session from \(peerID) (\(self.directory.rejectedCount) turned away so far)")
                }
                session.close("this host's peer table is full (--max-peers \(self.config.maxPeers))", reason: .closedLocally)
                return
            }
            self.directory.apply(adopted.changes)
            await self.discovery.refreshUnverified()
            self.adoptIncoming(session, as: adopted.snapshot.id, remotePeerID: peerID)
        }
    }

    /// Applies the crossing rule (``CrossingRule``) to an authenticated
    /// incoming session.
    private func adoptIncoming(_ session: PeerSession, as peer: UUID, remotePeerID: String) {
        guard table.contains(session), !session.isClosed else { return }
        session.peerUUID = peer
        if let existing = table[peer], existing !== session {
            let facts = CrossingRule.Existing(connected: existing.isConnected, dialledByUs: existing.role == .inviter,
                                              authenticated: existing.isAuthenticated, age: clock.now().timeIntervalSince(existing.startedAt))
            if CrossingRule.decide(existing: facts, ours: identityKey.peerID, theirs: remotePeerID) == .closeIncoming {
                logger.debug("session \(session.number): duplicate of session \(existing.number) with \(remotePeerID); closing it")
                session.close("a session between these peers exists", reason: .duplicate)
                return
            }
            logger.debug("session \(session.number): crossing invitations; it replaces our dial (session \(existing.number))")
            table.bind(session, to: peer)
            session.autoAccept = true
            existing.close("crossing invitations: the other connection wins", reason: .duplicate)
        } else {
            // Our dial lost the crossing rule and this is the winner: we
            // asked for the session too.
            if table.isAwaitingCrossing(peer) { session.autoAccept = true }
            table.bind(session, to: peer)
        }
        setState(.connecting, for: peer, reason: nil)
        if let pending = session.pendingDecision {
            session.pendingDecision = nil
            sessionNeedsDecision(session, name: pending.name, context: pending.context, timeoutSeconds: pending.timeout, pairing: pending.pairing)
        }
    }

    /// The invitee side must ask a client.
    public func sessionNeedsDecision(_ session: PeerSession, name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool) {
        guard let peer = session.peerUUID, table.isCurrent(session) else {
            session.pendingDecision = (name, context, timeoutSeconds, pairing)
            return
        }
        if let mismatch = self.pairing.violation(by: session, claimedName: name) {
            refuse(session, mismatch: mismatch)
            return
        }
        let paired = self.pairing.isPaired(session.remotePeerID)
        invitations.arrived(session, peer: peer, name: name, context: context, timeoutSeconds: timeoutSeconds,
                            facts: .init(wanted: session.autoAccept, policyAccepts: self.pairing.acceptsAutomatically(session.remotePeerID), pairing: pairing,
                                         paired: paired, subscribers: control.subscriberCount),
                            now: clock.now())
    }

    /// Connected.
    public func sessionEstablished(_ session: PeerSession) {
        guard let peer = session.peerUUID, table.isCurrent(session) else { return }
        invitations.settled(session)
        // A session opened to pair is not a connection clients can use: the
        // row stays `connecting` until the pairing ends it.
        if session.isForPairing {
            pairing.connected(session)
            return
        }
        setState(.connected, for: peer, reason: nil)
        reconnect.connected(peer)
        rememberAddresses(of: peer)
        drainQueue(for: peer)
        pairing.connected(session)
    }

    /// A message arrived: the clients taking messages get it, or the inbox
    /// keeps it; if neither can, the words for the session's `busy` close.
    public func session(_ session: PeerSession, delivered message: [UInt8]) -> String? {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return "the session has no proven peer" }
        if case .refused(let why) = inbox.arrived(message, from: peerID, now: clock.now()) {
            logger.warning("closing the session with '\(directory.row(peer)?.name ?? peerID)' as busy: \(why)")
            // Not dialled again for 30 s, or until a client takes messages
            // here (a disk that was full may have room again by itself).
            reconnect.refusedAsBusy(peer, now: clock.now())
            return "'\(discovery.name)': \(why)"
        }
        // A subscriber is behind: hold the flow back (this session stops
        // reading) until it catches up, rather than queue more or drop it.
        hold.delivered(by: session, now: clock.now())
        return nil
    }

    /// The session ended.
    public func sessionFinished(_ session: PeerSession, reason: CloseReason, text: String) {
        let wasCurrent = table.remove(session)
        // A session that queued much leaves free pages behind: hand them back.
        if session.peakQueuedBytes > 1 << 20 { malloc_trim(0) }
        invitations.settled(session)
        logger.debug("session \(session.number) with \(session.remoteAddress) ended: \(reason.rawValue): \(text)")
        if reason == .identityMismatch {
            let info = IdentityMismatchInfo(peer: session.peerUUID, expected: session.expectedPeerID ?? "", actual: session.remotePeerID ?? "",
                                            address: session.remoteAddress)
            logger.warning("identity mismatch at \(session.remoteAddress): advertised \(info.expected), proved \(info.actual)")
            emit(ControlEvent(seq: 0, type: .identityMismatch, time: clock.now(), peer: session.peerUUID.flatMap(directory.row), mismatch: info))
            // That endpoint is not the peer's: it leaves the row, and is not
            // merged again (nor reported again) while Avahi keeps the service.
            if let endpoint = session.endpoint, let peer = session.peerUUID {
                lane.submit { [weak self] in
                    guard let self else { return }
                    self.directory.apply(await self.identity.refuseEndpoint(endpoint, of: peer))
                }
            }
        }
        guard let peer = session.peerUUID, wasCurrent else { return }
        if session.isAuthenticated { directory.sessionEnded(peer, at: clock.now()) }
        // Unacknowledged queued messages stay on disk for the next session.
        queued.sessionEnded(peer)
        if reason == .duplicate {
            // The other side's dial wins the crossing rule; its connection comes.
            table.awaitCrossing(of: peer, until: clock.now().addingTimeInterval(opener.limits.handshakeTimeout * 2))
            return
        }
        switch DialRetry.next(dialledByUs: session.role == .inviter, authenticated: session.isAuthenticated, reason: reason,
                              remaining: session.remainingEndpoints.count) {
        case .notADial:
            break
        case .tryNext:
            if opener.dial(peer, endpoints: session.remainingEndpoints, expected: session.expectedPeerID,
                    context: session.inviteContext, timeout: session.inviteTimeout, pairing: session.isForPairing) { return }
            fallthrough
        case .inviteFailed:
            logger.notice("invitation to \(peer.uuidString.lowercased()) failed: \(reason.rawValue): \(text)")
            emit(ControlEvent(seq: 0, type: .inviteFailed, time: clock.now(), peer: directory.row(peer), reason: reason, detail: text))
            return
        }
        if reason == .busy, !reconnect.wasRefusedAsBusy(peer) {
            // The peer's inbox is full: its queue waits here, and it is not
            // dialled for 30 s (it dials us once a client takes messages).
            logger.notice("'\(directory.row(peer)?.name ?? "peer")' is busy: \(text); its queued messages wait")
            if let peerID = session.remotePeerID { queued.peerBusy(peerID, text) }
            reconnect.peerWasBusy(peer, now: clock.now())
        }
        setState(.notConnected, for: peer, reason: reason, detail: text)
    }
}


// MARK: - Pairing, trust and queued delivery

extension SessionDirector {


    /// Closes a session that claims a paired peer's identity, and says so.
    private func refuse(_ session: PeerSession, mismatch: IdentityMismatchInfo) {
        logger.warning("refusing \(session.remoteAddress): it claims a paired peer's identity (expected \(mismatch.expected), got \(mismatch.actual))")
        emit(ControlEvent(seq: 0, type: .identityMismatch, time: clock.now(), peer: mismatch.peer.flatMap(directory.row), mismatch: mismatch))
        session.close("identity does not match the paired peer", reason: .closedLocally)
    }

    /// The peer's current session, if any.
    public func session(for peer: UUID) -> PeerSession? { table[peer] }

    /// Whether our dial to the peer lost the crossing rule and its winning
    /// connection is awaited.
    public func isAwaitingCrossing(_ peer: UUID) -> Bool { table.isAwaitingCrossing(peer) }

    /// Hands queued messages to a connected peer's session, oldest first,
    /// as far as its send queue takes them; the rest wait for the next tick.
    public func drainQueue(for peer: UUID) {
        guard let session = table[peer] else { return }
        queued.drain(to: session, peer: peer, name: directory.row(peer)?.name ?? session.remotePeerID ?? "peer")
    }

    /// The peer acknowledged messages: clients hear it (`delivered`), and
    /// queued ones it has are off the disk.
    public func session(_ session: PeerSession, acknowledged count: UInt64) {
        if let peer = session.peerUUID, count > 0 {
            emit(ControlEvent(seq: 0, type: .delivered, time: clock.now(), peer: directory.row(peer), delivery: DeliveryInfo(session: session.number, through: count)))
        }
        guard let peer = session.peerUUID, table.isCurrent(session), let peerID = session.remotePeerID else { return }
        queued.acknowledged(count, peer: peer, peerID: peerID)
    }

    /// Keeps a paired peer's current addresses in the trust store.
    /// Only endpoints at the address of the live, authenticated session are
    /// kept: an address someone merely advertised for the peer proves nothing.
    private func rememberAddresses(of peer: UUID) {
        guard let row = directory.row(peer), let session = table[peer] else { return }
        pairing.rememberAddresses(of: row, session: session)
    }

    /// The peer asks to pair.
    public func sessionPairingRequested(_ session: PeerSession) {
        pairing.requested(on: session, now: clock.now())
    }

    /// A pairing step.
    public func session(_ session: PeerSession, pairing action: PairingAction) {
        pairing.perform(action, on: session, now: clock.now())
    }

    /// The peer removed its trust in us: remove ours.
    public func sessionUnpaired(_ session: PeerSession) {
        pairing.unpairedByPeer(session)
    }
}
