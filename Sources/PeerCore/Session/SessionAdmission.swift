/// Decides which sessions the daemon takes, so that no stranger, however
/// many connections or addresses it uses, can shut real peers out. Pure:
/// the session layer passes what exists and performs the verdict.
///
/// Rules:
/// - A new TCP connection is a pending handshake. At most `maxPending` and
///   `maxPendingPerAddress` of those; when full, the oldest pending one from
///   an address no known peer uses is evicted for the newcomer, so a flood
///   of idle connections cannot keep a real peer from handshaking. Only
///   when every pending handshake comes from a known peer's address is a
///   stranger refused.
/// - Once authenticated, a paired peer is admitted while fewer than
///   `maxSessions` sessions are authenticated. Unpaired peers share
///   `maxSessions - reservedForPaired`, at most `maxPerAddress` each address,
///   and at most `maxUnaccepted` of them may wait for a decision or pair.
/// - A dial is admitted under the same totals.
package struct SessionAdmission: Sendable, Equatable {
    /// What a pending handshake is, for eviction.
    package struct Pending: Sendable, Equatable {
        /// The session's number (oldest first by number).
        package var number: Int
        /// The remote address.
        package var address: String
        /// Whether the address is one a known peer (a row's endpoint) uses.
        package var known: Bool

        /// Creates a pending handshake.
        package init(number: Int, address: String, known: Bool) {
            self.number = number
            self.address = address
            self.known = known
        }
    }

    /// An authenticated session, for the counts.
    package struct Authenticated: Sendable, Equatable {
        /// The remote address.
        package var address: String
        /// Whether the peer is paired.
        package var paired: Bool
        /// Whether a client accepted it (or policy did), as opposed to
        /// waiting for an invitation, a decision or a pairing.
        package var accepted: Bool

        /// Creates an authenticated session.
        package init(address: String, paired: Bool, accepted: Bool) {
            self.address = address
            self.paired = paired
            self.accepted = accepted
        }
    }

    /// The verdict on a new connection.
    package enum ConnectionVerdict: Sendable, Equatable {
        /// Take it.
        case admit
        /// Take it, closing the pending handshake with this number first.
        case admitEvicting(Int)
        /// Refuse it.
        case refuse(SessionLimit)
    }

    /// Authenticated sessions in all (`--max-sessions`).
    package var maxSessions: Int
    /// Of those, slots only paired peers may take.
    package var reservedForPaired: Int
    /// Sessions with unpaired peers from one address.
    package var maxPerAddress: Int
    /// Unpaired sessions not yet accepted.
    package var maxUnaccepted: Int
    /// Handshakes under way (`--max-pending`).
    package var maxPending: Int
    /// Handshakes under way per address.
    package var maxPendingPerAddress: Int

    /// Limits from the configuration: a quarter of `maxSessions` (none
    /// below 4) kept for paired peers, a quarter for unaccepted sessions, and 4
    /// unpaired sessions per address.
    package init(maxSessions: Int, maxPending: Int, maxPendingPerAddress: Int) {
        self.maxSessions = maxSessions
        reservedForPaired = maxSessions / 4
        maxPerAddress = 4
        maxUnaccepted = max(1, maxSessions / 4)
        self.maxPending = maxPending
        self.maxPendingPerAddress = maxPendingPerAddress
    }

    /// A connection arrives from `address` (`known`: a known peer's address).
    /// Even with every session slot taken the handshake is admitted (within
    /// the pending bounds): only after it can the refusal be sent, naming
    /// the limit, in a `close` the peer can read.
    package func admitConnection(from address: String, known: Bool, pending: [Pending]) -> ConnectionVerdict {
        if pending.filter({ $0.address == address }).count >= maxPendingPerAddress { return .refuse(.pendingPerAddress(maxPendingPerAddress)) }
        guard pending.count >= maxPending else { return .admit }
        if let victim = pending.filter({ !$0.known }).min(by: { $0.number < $1.number }) { return .admitEvicting(victim.number) }
        return .refuse(.pendingHandshakes(maxPending))
    }

    /// A handshake completed: may this peer keep the session, given the
    /// other authenticated sessions?
    package func admitAuthenticated(paired: Bool, address: String, others: [Authenticated]) -> SessionLimit? {
        if others.count >= maxSessions { return .sessions(maxSessions) }
        if paired { return nil }
        return admitUnpaired(address: address, others: others)
    }

    /// May we dial a peer, given the authenticated sessions?
    package func admitDial(paired: Bool, others: [Authenticated]) -> SessionLimit? {
        if others.count >= maxSessions { return .sessions(maxSessions) }
        if paired { return nil }
        let unpaired = others.filter { !$0.paired }.count
        return unpaired >= maxSessions - reservedForPaired ? .unpairedSessions(maxSessions - reservedForPaired) : nil
    }

    private func admitUnpaired(address: String, others: [Authenticated]) -> SessionLimit? {
        let unpaired = others.filter { !$0.paired }
        if unpaired.count >= maxSessions - reservedForPaired { return .unpairedSessions(maxSessions - reservedForPaired) }
        if unpaired.filter({ $0.address == address }).count >= maxPerAddress { return .perAddress(maxPerAddress) }
        if unpaired.filter({ !$0.accepted }).count >= maxUnaccepted { return .unaccepted(maxUnaccepted) }
        return nil
    }
}
