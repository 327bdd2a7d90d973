import FoundationEssentials
import PeerCore

/// Invitations on the invitee side: decides each by ``InvitationPolicy``,
/// keeps those waiting for a client in an ``InvitationBook``, and answers
/// them when a client accepts or declines.
@MainActor
public final class InvitationDesk {
    private var book = InvitationBook()
    private var sessions: [String: PeerSession] = [:]
    private var limiter: RateLimiter<Int>
    private let rate: Int
    private let logger: Logger
    /// An invitation now waits for a client: the `invitation` event (given at init).
    private let onWaiting: @MainActor (InvitationInfo) -> Void

    /// A desk allowing `rate` invitations a minute from unpaired peers
    /// (bursts of as many); `onWaiting` hears of each one that waits.
    public init(rate: Int, logger: Logger, onWaiting: @escaping @MainActor (InvitationInfo) -> Void) {
        self.onWaiting = onWaiting
        self.rate = rate
        limiter = RateLimiter<Int>(perSecond: Double(rate) / 60, burst: Double(rate))
        self.logger = logger
    }

    /// The invitations waiting for a client, soonest to expire first.
    public var waiting: [InvitationInfo] { book.all }

    /// `session` (with row `peer`) invites us; `facts` says what is known
    /// of it, the invitation rate aside (this desk applies that).
    public func arrived(_ session: PeerSession, peer: UUID, name: String, context: [UInt8], timeoutSeconds: Int,
                        facts: InvitationPolicy.Facts, now: Date) {
        var facts = facts
        // Only an invitation that could be asked or declined for the rate
        // spends from it: one accepted anyway must not.
        if !facts.wanted && !(facts.policyAccepts && !facts.pairing) && !facts.paired {
            facts.rateAllows = limiter.allow(0, now: now)
        }
        switch InvitationPolicy.decide(facts) {
        case .accept:
            session.decide(accept: true)
        case .decline(let words):
            if !facts.rateAllows {
                logger.warning("more than \(rate) invitations from unpaired peers this minute; declining one from '\(name)'")
            } else {
                logger.notice("declining an invitation from '\(name)': \(words)")
            }
            session.declineAutomatically(words)
        case .ask:
            let id = UUID().uuidString.lowercased()
            let info = InvitationInfo(id: id, peer: peer, name: name, peerId: session.remotePeerID ?? "",
                                      context: String(decoding: context, as: UTF8.self),
                                      expires: now.addingTimeInterval(TimeInterval(timeoutSeconds)))
            sessions[id] = session
            book.add(info)
            logger.info("invitation \(id) from '\(name)' (\(peer.uuidString.lowercased()))")
            onWaiting(info)
        }
    }

    /// A client answers the invitation whose id starts with `prefix`.
    public func answer(_ prefix: String, accept: Bool) -> Result<InvitationInfo, ControlError> {
        let found = book.match(prefix)
        guard case .success(let info) = found, let session = sessions[info.id] else { return found }
        session.decide(accept: accept)
        return .success(info)
    }

    /// The session's invitation is settled (connected, or the session ended).
    public func settled(_ session: PeerSession) {
        guard let id = invitationID(of: session) else { return }
        sessions[id] = nil
        book.remove(id)
    }

    /// Whether a client is being asked about `session`'s invitation.
    public func isAsking(_ session: PeerSession) -> Bool { invitationID(of: session) != nil }

    /// The id of the invitation `session` carries, if a client is asked
    /// (the desk's own book, looked up: the session keeps no copy).
    private func invitationID(of session: PeerSession) -> String? { sessions.first { $0.value === session }?.key }
}
