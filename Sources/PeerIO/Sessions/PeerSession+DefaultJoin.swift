import FoundationEssentials
import PeerCore

/// The default app joining a session accepted for an app alone (issue 23;
/// docs/protocol.md §10, "The default app joins"). Every decision is the
/// lifecycle's ``DefaultAppJoin``; this shell sends what it says, as
/// `appInvite`, `appAccept`, `appDecline` and `appLeave` with the empty
/// name, and hands the rest to the delegate.
extension PeerSession {
    /// A client here invites the default app over this session (`invite`
    /// toward a peer whose session was accepted for an app alone).
    package func inviteDefault(context: [UInt8], timeout: TimeInterval) {
        performJoin(lifecycle.joinDefault { $0.invite(context: context, timeout: timeout, now: clock.now()) }, words: nil)
    }

    /// This host decided the peer's invitation of the default app;
    /// `words` go with a decline.
    package func decideJoin(accept: Bool, words: String) {
        performJoin(lifecycle.joinDefault { $0.decided(accept: accept) }, words: words)
    }

    /// The peer's `appInvite`, `appAccept`, `appDecline` or `appLeave` with
    /// the empty name.
    func receivedJoin(_ message: AppMessage) {
        let now = clock.now()
        switch message {
        case .invite(_, let timeout, let context):
            performJoin(lifecycle.joinDefault { $0.peerInvited(context: context, timeout: TimeInterval(timeout) / 1000, now: now) }, words: nil)
        case .accept:
            performJoin(lifecycle.joinDefault { $0.peerAccepted() }, words: nil)
        case .decline(_, let reason, let text), .leave(_, let reason, let text):
            performJoin(lifecycle.joinDefault { $0.peerEnded(reason, text: text) }, words: nil)
        default:
            break
        }
    }

    /// The clock: an invitation of the default app past its time ends.
    func tickJoin(now: Date) {
        performJoin(lifecycle.joinDefault { $0.tick(now: now) }, words: nil)
    }

    private func performJoin(_ actions: [DefaultAppJoin.Action], words: String?) {
        for action in actions {
            switch action {
            case .sendInvite(let context, let timeout):
                sendApp(.invite(name: "", timeoutMilliseconds: timeout, context: context))
            case .sendAccept:
                sendApp(.accept(name: ""))
            case .sendDecline(let reason):
                sendApp(.decline(name: "", reason: reason, text: words ?? (reason == .timedOut ? "nobody answered in time" : "declined")))
            case .sendLeave(let reason):
                sendApp(.leave(name: "", reason: reason, text: reason == .timedOut ? "nobody answered in time" : "withdrawn"))
            case .decide, .joined, .failed, .withdrawn:
                delegate?.session(self, join: action)
            }
        }
    }
}
