import FoundationEssentials
import PeerCore
import PeerProtocol

/// Invitations on the invitee side: decides each by ``InvitationPolicy``,
/// keeps those waiting for a client in an ``InvitationBook``, and answers
/// them when a client accepts or declines.
@MainActor
package final class InvitationDesk {
    private var book = InvitationBook()
    /// The session each waiting invitation came on, and whether it is the
    /// default app's joining of a session accepted for an app alone
    /// (answered by ``PeerSession/decideJoin(accept:words:)``), not the
    /// session's own invitation.
    private var sessions: [String: (session: PeerSession, join: Bool)] = [:]
    private var limiter: RateLimiter<Int>
    /// Paired peers' app invitations: a bucket of the same rate each.
    private var pairedAppLimiter: RateLimiter<UUID>
    private let rate: Int
    private let logger: Logger
    /// An invitation now waits for a client: the `invitation` event (given at init).
    private let onWaiting: @MainActor (InvitationInfo) -> Void

    /// A desk allowing `rate` invitations a minute from unpaired peers
    /// (bursts of as many); `onWaiting` hears of each one that waits.
    package init(rate: Int, logger: Logger, onWaiting: @escaping @MainActor (InvitationInfo) -> Void) {
        self.onWaiting = onWaiting
        self.rate = rate
        limiter = RateLimiter<Int>(perSecond: Double(rate) / 60, burst: Double(rate))
        pairedAppLimiter = RateLimiter<UUID>(perSecond: Double(rate) / 60, burst: Double(rate))
        self.logger = logger
    }

    /// Whether a peer's app invitation (`appInvite`) may reach the app's
    /// clients now (issue 42, point 3): an unpaired peer's spend from the
    /// same `--invitation-rate` as the session invitations of unpaired
    /// peers; a paired peer has a bucket of that rate of its own, so no
    /// stranger's flood holds back a paired peer's invitations.
    package func allowsAppInvitation(from peer: UUID, paired: Bool, now: Date) -> Bool {
        paired ? pairedAppLimiter.allow(peer, now: now) : limiter.allow(0, now: now)
    }

    /// The invitations waiting for a client, soonest to expire first.
    package var waiting: [InvitationInfo] { book.all }

    /// `session` (with row `peer`) invites us; `facts` says what is known
    /// of it, the invitation rate aside (this desk applies that). `join`:
    /// the invitation is the default app's, over a session accepted for an
    /// app alone (protocol.md §10), decided by the same rules.
    package func arrived(_ session: PeerSession, peer: UUID, name: String, context: [UInt8], timeoutSeconds: Int,
                        facts: InvitationPolicy.Facts, join: Bool = false, now: Date) {
        var facts = facts
        // Only an invitation that could be asked or declined for the rate
        // spends from it: one accepted anyway must not.
        if !facts.wanted && !(facts.policyAccepts && !facts.pairing) && !facts.paired {
            facts.rateAllows = limiter.allow(0, now: now)
        }
        switch InvitationPolicy.decide(facts) {
        case .accept:
            decide(session, join: join, accept: true, words: "")
        case .decline(let words):
            if !facts.rateAllows {
                logger.warning("more than \(rate) invitations from unpaired peers this minute; declining one from '\(name)'")
            } else {
                logger.notice("declining an invitation from '\(name)': \(words)")
            }
            if join { session.decideJoin(accept: false, words: words) } else { session.declineAutomatically(words) }
        case .ask:
            let id = UUID().uuidString.lowercased()
            let info = InvitationInfo(id: id, peer: peer, name: name, peerId: session.remotePeerID ?? "",
                                      context: String(decoding: context, as: UTF8.self),
                                      expires: now.addingTimeInterval(TimeInterval(timeoutSeconds)))
            sessions[id] = (session, join)
            book.add(info)
            logger.info("invitation \(id) from '\(name)' (\(peer.uuidString.lowercased()))")
            onWaiting(info)
        }
    }

    /// A client answers the invitation whose id starts with `prefix`.
    package func answer(_ prefix: String, accept: Bool) -> Result<InvitationInfo, ControlError> {
        let found = book.match(prefix)
        guard case .success(let info) = found, let waiting = sessions[info.id] else { return found }
        decide(waiting.session, join: waiting.join, accept: accept, words: "a client on the invitee declined")
        return .success(info)
    }

    private func decide(_ session: PeerSession, join: Bool, accept: Bool, words: String) {
        if join { session.decideJoin(accept: accept, words: words) } else { session.decide(accept: accept) }
    }

    /// The session's invitation is settled (connected, or the session ended).
    package func settled(_ session: PeerSession) {
        guard let id = invitationID(of: session) else { return }
        sessions[id] = nil
        book.remove(id)
    }

    /// Whether a client is being asked about `session`'s invitation.
    package func isAsking(_ session: PeerSession) -> Bool { invitationID(of: session) != nil }

    /// The id of the invitation `session` carries, if a client is asked
    /// (the desk's own book, looked up: the session keeps no copy).
    private func invitationID(of session: PeerSession) -> String? { sessions.first { $0.value.session === session }?.key }
}
