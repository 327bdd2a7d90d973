package import FoundationEssentials
package import PeerProtocol

/// The default app joining a session that was accepted for one app alone
/// (issue 23; docs/protocol.md §10, "The default app joins"). Pure: it
/// takes events (a client's `invite`, the peer's `appInvite`, `appAccept`,
/// `appDecline` and `appLeave` with the empty name, this host's decision,
/// the clock) and returns actions. One lives in each session and ends
/// with it.
///
/// Rules, the same as an app's invitation (``AppPeerLifecycle``):
/// - the invited host decides by the default app's rules (`--auto-accept`,
///   the invitation rate, or a subscribed client), as it decides a
///   session's `invite`;
/// - both sides inviting each other join: each accepts the other's;
/// - an unanswered invitation ends as `timedOut` on both sides;
/// - once joined, the session carries the default app until it ends.
package struct DefaultAppJoin: Sendable, Equatable {
    /// Where it stands.
    package enum Phase: Sendable, Equatable {
        /// The session carries apps alone, and no invitation is out.
        case appsOnly
        /// We invited; waiting for the peer's answer until `deadline`.
        case inviting(deadline: Date)
        /// The peer invited; this host decides until `deadline`.
        case invited(deadline: Date)
        /// The session carries the default app.
        case joined
    }

    /// What the shell does.
    package enum Action: Sendable, Equatable {
        /// Send `appInvite` with the empty name, this context and timeout.
        case sendInvite(context: [UInt8], timeoutMilliseconds: UInt32)
        /// Send `appAccept` with the empty name.
        case sendAccept
        /// Send `appDecline` with the empty name.
        case sendDecline(AppEndReason)
        /// Send `appLeave` with the empty name (our invitation is withdrawn).
        case sendLeave(AppEndReason)
        /// Decide the peer's invitation by the default app's rules, and
        /// answer with ``decided(accept:)``.
        case decide(context: [UInt8], timeoutSeconds: Int)
        /// The session carries the default app from now on.
        case joined
        /// Our invitation ended without joining.
        case failed(AppEndReason, detail: String)
        /// The peer's invitation ended before this host decided.
        case withdrawn
    }

    /// The phase now.
    package private(set) var phase: Phase

    /// A session that carries the default app already (`joined: true`), or
    /// one accepted for an app alone.
    package init(joined: Bool) {
        phase = joined ? .joined : .appsOnly
    }

    /// Whether the session carries the default app.
    package var isJoined: Bool { phase == .joined }

    /// A client here invites the default app; nothing when it is joined or
    /// its invitation is out already.
    package mutating func invite(context: [UInt8], timeout: TimeInterval, now: Date) -> [Action] {
        switch phase {
        case .appsOnly:
            phase = .inviting(deadline: now.addingTimeInterval(timeout))
            return [.sendInvite(context: context, timeoutMilliseconds: UInt32(min(max(timeout, 0), 86_400) * 1000))]
        case .invited:
            // The peer asked first: inviting back is accepting.
            phase = .joined
            return [.sendAccept, .joined]
        case .inviting, .joined:
            return []
        }
    }

    /// The peer invites the default app, for at most `timeout` seconds.
    package mutating func peerInvited(context: [UInt8], timeout: TimeInterval, now: Date) -> [Action] {
        switch phase {
        case .joined:
            // Its invitation crossed our accept: it hears the answer again.
            return [.sendAccept]
        case .inviting:
            phase = .joined
            return [.sendAccept, .joined]
        case .appsOnly:
            let seconds = max(1, min(timeout, 300))
            phase = .invited(deadline: now.addingTimeInterval(seconds))
            return [.decide(context: context, timeoutSeconds: Int(seconds.rounded(.up)))]
        case .invited:
            return []
        }
    }

    /// This host decided the peer's invitation.
    package mutating func decided(accept: Bool) -> [Action] {
        guard case .invited = phase else { return [] }
        if accept {
            phase = .joined
            return [.sendAccept, .joined]
        }
        phase = .appsOnly
        return [.sendDecline(.declined)]
    }

    /// The peer accepted our invitation.
    package mutating func peerAccepted() -> [Action] {
        guard case .inviting = phase else { return [] }
        phase = .joined
        return [.joined]
    }

    /// The peer declined our invitation, or withdrew its own.
    package mutating func peerEnded(_ reason: AppEndReason, text: String) -> [Action] {
        switch phase {
        case .inviting:
            phase = .appsOnly
            return [.failed(reason, detail: text)]
        case .invited:
            phase = .appsOnly
            return [.withdrawn]
        case .appsOnly, .joined:
            return []
        }
    }

    /// The clock: an invitation past its deadline ends as `timedOut`.
    package mutating func tick(now: Date) -> [Action] {
        switch phase {
        case .inviting(let deadline) where now >= deadline:
            phase = .appsOnly
            return [.sendLeave(.timedOut), .failed(.timedOut, detail: "nobody answered in time")]
        case .invited(let deadline) where now >= deadline:
            phase = .appsOnly
            return [.sendDecline(.timedOut), .withdrawn]
        default:
            return []
        }
    }
}
