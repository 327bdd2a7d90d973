import FoundationEssentials
import PeerCore

/// Every session, and the one that counts for each peer.
///
/// The current session of a peer is dialling, handshaking, inviting,
/// awaiting a decision or connected; other sessions are accepted
/// connections not yet authenticated, or losers of the crossing rule on
/// their way out. A peer whose dial lost the crossing rule awaits the
/// winning connection for a while instead. The invariants that span these
/// collections are checked in debug builds after every change.
@MainActor
package final class SessionTable {
    private var all: [ObjectIdentifier: PeerSession] = [:]
    private var byPeer: [UUID: PeerSession] = [:]
    private var crossings: [UUID: Date] = [:]
    /// Ended sessions whose last frames are still going out: held (and
    /// ticked) until their sockets close, within
    /// ``SessionTransport/lingerSeconds``.
    private var closing: [PeerSession] = []
    private var next = 1

    /// An empty table.
    package init() {}

    /// Every session.
    package var sessions: [PeerSession] { Array(all.values) }
    /// How many sessions there are.
    package var count: Int { all.count }
    /// The peers' current sessions.
    package var current: [PeerSession] { Array(byPeer.values) }
    /// The peers with a current session.
    package var peers: [UUID] { Array(byPeer.keys) }

    /// The number for the next session (1, 2, …, for logs and events).
    package func nextNumber() -> Int {
        defer { next += 1 }
        return next
    }

    /// Whether `session` is in the table.
    package func contains(_ session: PeerSession) -> Bool { all[ObjectIdentifier(session)] != nil }

    /// A new session (accepted or dialled).
    package func add(_ session: PeerSession) {
        all[ObjectIdentifier(session)] = session
        checkInvariants()
    }

    /// The session ended. Returns whether it was its peer's current one
    /// (which the peer then no longer has).
    @discardableResult
    package func remove(_ session: PeerSession) -> Bool {
        if all.removeValue(forKey: ObjectIdentifier(session)) != nil { closing.append(session) }
        guard let peer = session.peerUUID, byPeer[peer] === session else {
            checkInvariants()
            return false
        }
        byPeer[peer] = nil
        checkInvariants()
        return true
    }

    /// Clock tick for ended sessions: those whose sockets are closed now
    /// are let go.
    package func tickClosing(now: Date) {
        closing.removeAll { $0.tick(now: now) }
    }

    /// The peer's current session.
    package subscript(peer: UUID) -> PeerSession? { byPeer[peer] }

    /// Whether `session` is its peer's current session.
    package func isCurrent(_ session: PeerSession) -> Bool {
        session.peerUUID.map { byPeer[$0] === session } ?? false
    }

    /// `session` (in the table, with `peerUUID` set to `peer`) is now the
    /// peer's current session; a crossing the peer awaited is over.
    package func bind(_ session: PeerSession, to peer: UUID) {
        byPeer[peer] = session
        crossings[peer] = nil
        checkInvariants()
    }

    /// Our dial to `peer` lost the crossing rule: its winning connection
    /// is awaited until `deadline`.
    package func awaitCrossing(of peer: UUID, until deadline: Date) {
        crossings[peer] = deadline
        checkInvariants()
    }

    /// Whether the peer's winning connection is awaited.
    package func isAwaitingCrossing(_ peer: UUID) -> Bool { crossings[peer] != nil }

    /// Crossings whose winning connection never came by `now`: they are
    /// over, and their peers returned.
    package func expiredCrossings(now: Date) -> [UUID] {
        let expired = crossings.filter { now >= $0.value }.map(\.key)
        for peer in expired { crossings[peer] = nil }
        return expired
    }

    /// Whether the peer has a session, or one is on its way (a crossing).
    package func hasSession(_ peer: UUID) -> Bool { byPeer[peer] != nil || crossings[peer] != nil }

    /// The address of the peer's live, authenticated session, if any.
    package func liveAddress(_ peer: UUID) -> String? {
        byPeer[peer].flatMap { $0.isAuthenticated && !$0.isClosed ? TCPConnector.plainHost($0.remoteHost) : nil }
    }

    /// Rows the identity actor may not evict: the `paired` peers', and
    /// those of peers with a session.
    package func protectedRows(paired: [UUID]) -> Set<UUID> {
        Set(paired).union(all.values.compactMap(\.peerUUID))
    }

    /// Current sessions still in TCP connect whose expected peer id passes `filter`.
    package func stalledDials(to filter: (String?) -> Bool) -> [PeerSession] {
        byPeer.values.filter { $0.isTCPConnecting && filter($0.expectedPeerID) }
    }

    private func checkInvariants() {
        #if DEBUG
        for (peer, session) in byPeer {
            assert(all[ObjectIdentifier(session)] != nil, "a peer's current session is not in the table")
            assert(session.peerUUID == peer, "a current session is filed under another peer")
            assert(crossings[peer] == nil, "a peer both has a session and awaits a crossing")
        }
        #endif
    }
}
