package import FoundationEssentials
package import PeerProtocol

/// The state of one app with one peer, on top of the hosts' one session
/// (issue 23, point 3; MultipeerConnectivity's `MCSession` per app). Pure:
/// it takes events (a client's invitation or answer, the peer's wire
/// messages, the session's end, the clock) and returns actions.
///
/// Rules:
/// - an invitation is answered by a client of the app on the invited host;
///   with auto-accept for the app (which needs the app kept there) it is
///   accepted without asking; otherwise, with no client holding the app,
///   it is declined at once (`noClient`);
/// - both sides inviting each other (MPC's crossing complaint) connect:
///   each accepts the other's;
/// - an unanswered invitation ends as `timedOut` on both sides;
/// - the app leaving, here or there, or the session ending, ends it.
package struct AppPeerLifecycle: Sendable, Equatable {
    /// Where it stands.
    package enum Phase: Sendable, Equatable {
        /// Nothing, and why the last ended.
        case notConnected(AppEndReason?)
        /// We invited; waiting for the peer's answer until `deadline`.
        case inviting(deadline: Date)
        /// The peer invited; waiting for a client here until `deadline`.
        case invited(deadline: Date)
        /// Both apps are in.
        case connected
    }

    /// The phase now.
    package private(set) var phase: Phase = .notConnected(nil)

    /// Nothing yet.
    package init() {}

    /// The state clients see.
    package var state: ConnectionState {
        switch phase {
        case .notConnected: .notConnected
        case .inviting, .invited: .connecting
        case .connected: .connected
        }
    }

    /// A client here invites the peer's app; nil when it is already
    /// connected or inviting (nothing to do).
    package mutating func invite(context: [UInt8], timeout: TimeInterval, now: Date) -> [AppPeerAction]? {
        switch phase {
        case .notConnected:
            phase = .inviting(deadline: now.addingTimeInterval(timeout))
            return [.sendInvite(context: context, timeoutMilliseconds: UInt32(min(timeout, 86_400) * 1000)), .stateChanged(.connecting, reason: nil)]
        case .invited:
            // The peer asked first: inviting back is accepting.
            phase = .connected
            return [.sendAccept, .stateChanged(.connected, reason: nil)]
        case .inviting, .connected:
            return nil
        }
    }

    /// The peer's app invites ours. `clients`: whether any client here
    /// holds the app; `autoAccept`: whether the app (kept here: held or
    /// declared) accepts this peer without asking; `rateAllows`: asked
    /// only for an invitation that would reach the clients (the first, or
    /// a repeat that replaces it), so one accepted anyway spends nothing.
    /// A repeat while one waits replaces it: one invitation per app and
    /// peer, and no second `connecting` (issue 42, point 3). Past the rate
    /// a first one is declined and a repeat dropped: the peer's excess
    /// goes, never the clients' attention.
    package mutating func peerInvited(context: [UInt8], timeout: TimeInterval, clients: Bool, autoAccept: Bool,
                                     rateAllows: () -> Bool = { true }, now: Date) -> [AppPeerAction] {
        switch phase {
        case .connected:
            return [.sendAccept]
        case .inviting:
            // Crossing: both invited; each accepts the other's.
            phase = .connected
            return [.sendAccept, .stateChanged(.connected, reason: nil)]
        case .notConnected, .invited:
            if autoAccept {
                phase = .connected
                return [.sendAccept, .stateChanged(.connected, reason: nil)]
            }
            if case .invited = phase {
                guard rateAllows() else { return [] }
                phase = .invited(deadline: now.addingTimeInterval(timeout))
                return [.updateAsk(context: context)]
            }
            guard clients else { return [.sendDecline(.noClient)] }
            guard rateAllows() else { return [.declineOverRate] }
            phase = .invited(deadline: now.addingTimeInterval(timeout))
            return [.askClients(context: context), .stateChanged(.connecting, reason: nil)]
        }
    }

    /// A client here answered the peer's invitation.
    package mutating func answered(accept: Bool) -> [AppPeerAction] {
        guard case .invited = phase else { return [] }
        if accept {
            phase = .connected
            return [.sendAccept, .stateChanged(.connected, reason: nil)]
        }
        phase = .notConnected(.declined)
        return [.sendDecline(.declined), .stateChanged(.notConnected, reason: .declined)]
    }

    /// The peer accepted our invitation (or both crossed).
    package mutating func peerAccepted() -> [AppPeerAction] {
        guard case .inviting = phase else { return [] }
        phase = .connected
        return [.stateChanged(.connected, reason: nil)]
    }

    /// The peer declined, or its app left, or the session ended: it ends here.
    package mutating func ended(_ reason: AppEndReason) -> [AppPeerAction] {
        if case .notConnected = phase { return [] }
        phase = .notConnected(reason)
        return [.stateChanged(.notConnected, reason: reason)]
    }

    /// The app left here (its last client closed, or it was removed): the
    /// peer is told, unless nothing was under way.
    package mutating func leave() -> [AppPeerAction] {
        if case .notConnected = phase { return [] }
        phase = .notConnected(.left)
        return [.sendLeave(.left), .stateChanged(.notConnected, reason: .left)]
    }

    /// The clock: an invitation past its deadline ends as `timedOut`.
    package mutating func tick(now: Date) -> [AppPeerAction] {
        switch phase {
        case .inviting(let deadline) where now >= deadline:
            phase = .notConnected(.timedOut)
            return [.sendLeave(.timedOut), .stateChanged(.notConnected, reason: .timedOut)]
        case .invited(let deadline) where now >= deadline:
            phase = .notConnected(.timedOut)
            return [.sendDecline(.timedOut), .stateChanged(.notConnected, reason: .timedOut)]
        default:
            return []
        }
    }
}
