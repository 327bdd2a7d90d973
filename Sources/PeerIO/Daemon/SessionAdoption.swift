import FoundationEssentials
import PeerCore
import PeerProtocol

/// Who a session is, once its peer has proved its key: a claim on a paired
/// peer's identity is refused, a connection from ourselves is cut, the
/// session limits apply to incoming sessions, and an incoming session's row
/// is adopted from the ``IdentityActor`` (on the ``IdentityLane``) before
/// the crossing rule (``CrossingRule``, pure) decides which of two
/// connections between the same peers stays.
@MainActor
package final class SessionAdoption {
    private let config: DaemonConfiguration
    private let ownPeerID: String
    private let identity: IdentityActor
    private let lane: IdentityLane
    private let discovery: DiscoveryCoordinator
    private let directory: PeerDirectory
    private let trust: TrustDesk
    private let opener: SessionOpener
    private let table: SessionTable
    private let logger: Logger
    private let emit: @MainActor (ControlEvent) -> Void
    private let clock: DaemonClock
    private var refusedAtSessionCap = RefusalCounter()
    /// Rows the identity actor may not evict.
    private var protectedRows: Set<UUID> { table.protectedRows(paired: trust.records.map(\.uuid)) }
    /// Hears what adoption came to: the ``SessionDirector``, which sets
    /// itself here at the end of its init.
    package weak var delegate: (any SessionAdoptionDelegate)?

    /// Adoption for the sessions in `table`.
    package init(config: DaemonConfiguration, ownPeerID: String, identity: IdentityActor, lane: IdentityLane, discovery: DiscoveryCoordinator,
                directory: PeerDirectory, trust: TrustDesk, opener: SessionOpener, table: SessionTable, logger: Logger,
                emit: @escaping @MainActor (ControlEvent) -> Void, clock: DaemonClock) {
        self.config = config
        self.ownPeerID = ownPeerID
        self.identity = identity
        self.lane = lane
        self.discovery = discovery
        self.directory = directory
        self.trust = trust
        self.opener = opener
        self.table = table
        self.logger = logger
        self.emit = emit
        self.clock = clock
    }

    /// The remote proved its key (`peerID`): refused if it claims a paired
    /// peer's name or id with another key, or comes from ourselves, or is
    /// past a session limit; otherwise its row is adopted from the
    /// identity actor (on the lane) and the crossing rule applied.
    package func authenticated(_ session: PeerSession, peerID: String) {
        if let mismatch = trust.violation(by: session, claimedName: nil) {
            refuse(session, mismatch: mismatch)
            return
        }
        if session.role == .inviter, session.peerUUID == nil {
            adoptAddressDial(session, peerID: peerID)
            return
        }
        if session.role == .inviter {
            if let peer = session.peerUUID, table.isCurrent(session) { directory.setState(.connecting, for: peer, reason: nil) }
            lane.submit { [weak self] in
                guard let self else { return }
                await self.identity.markVerified(peerID: peerID)
                await self.discovery.refreshUnverified()
            }
            return
        }
        if peerID == ownPeerID {
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

    /// What a session taught about its peer (issue 21, point 3): where it
    /// reached it, and the name the peer gave inside it (`invite` or
    /// `accept`), written to the row by the identity actor, the rows' one
    /// owner. A row met only through sessions (added by address, incoming,
    /// across a router) is then named and shows an address.
    package func learned(_ session: PeerSession, name: String?) {
        guard let peerID = session.remotePeerID, session.isAuthenticated else { return }
        // A dial's endpoint with its port; a connection's origin as a host
        // alone (its port is an ephemeral one).
        let address = session.role == .inviter ? session.remoteAddress : TCPConnector.plainHost(session.remoteHost)
        lane.submit { [weak self] in
            guard let self else { return }
            self.directory.apply(await self.identity.learned(peerID: peerID, name: name, address: address))
        }
    }

    /// A dial to an address (`add`) reached a peer that proved `peerID`: its
    /// row is found or made, now verified, exactly as for a peer that
    /// connected to us. A peer that already has a session keeps it.
    private func adoptAddressDial(_ session: PeerSession, peerID: String) {
        if peerID == ownPeerID {
            session.close("that address is this host", reason: .closedLocally)
            return
        }
        lane.submit { [weak self] in
            guard let self else { return }
            guard let adopted = await self.identity.adopt(peerID: peerID, name: PeerRegistry.placeholderName(for: .peerID(peerID)),
                                                          protected: self.protectedRows) else {
                session.close("this host's peer table is full (--max-peers \(self.config.maxPeers))", reason: .closedLocally)
                return
            }
            self.directory.apply(adopted.changes)
            self.bindAddressDial(session, to: adopted.snapshot)
            await self.discovery.refreshUnverified()
        }
    }

    /// The row is there: the dial becomes its session, unless another
    /// session with the peer stays (this one is then closed as a duplicate).
    private func bindAddressDial(_ session: PeerSession, to adopted: PeerSnapshot) {
        let peer = adopted.id
        guard table.contains(session), !session.isClosed else { return }
        if let existing = table[peer], existing !== session {
            delegate?.session(session, provedAddressOf: directory.row(peer) ?? adopted, existing: true)
            session.close("a session with this peer exists", reason: .duplicate)
            return
        }
        session.peerUUID = peer
        table.bind(session, to: peer)
        directory.setState(.connecting, for: peer, reason: nil)
        delegate?.session(session, provedAddressOf: directory.row(peer) ?? adopted, existing: false)
    }

    /// Applies the crossing rule (``CrossingRule``) to an authenticated
    /// incoming session.
    private func adoptIncoming(_ session: PeerSession, as peer: UUID, remotePeerID: String) {
        guard table.contains(session), !session.isClosed else { return }
        session.peerUUID = peer
        if let existing = table[peer], existing !== session {
            let facts = CrossingRule.Existing(connected: existing.isConnected, dialledByUs: existing.role == .inviter,
                                              authenticated: existing.isAuthenticated, age: clock.now().timeIntervalSince(existing.startedAt))
            if CrossingRule.decide(existing: facts, ours: ownPeerID, theirs: remotePeerID) == .closeIncoming {
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
        directory.setState(.connecting, for: peer, reason: nil)
        delegate?.sessionAdopted(session)
    }

    /// Closes a session that claims a paired peer's identity, and says so.
    package func refuse(_ session: PeerSession, mismatch: IdentityMismatchInfo) {
        logger.warning("refusing \(session.remoteAddress): it claims a paired peer's identity (expected \(mismatch.expected), got \(mismatch.actual))")
        emit(ControlEvent(seq: 0, type: .identityMismatch, time: clock.now(), peer: mismatch.peer.flatMap(directory.row), mismatch: mismatch))
        session.close("identity does not match the paired peer", reason: .closedLocally)
    }
}
