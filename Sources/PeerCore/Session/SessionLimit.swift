/// A limit on sessions that turned one away, named so that the user (or
/// the peer, in the close text) learns which limit it was and how to move it.
package enum SessionLimit: Sendable, Equatable, CustomStringConvertible {
    /// Authenticated sessions (`--max-sessions`).
    case sessions(Int)
    /// Sessions with unpaired peers: `--max-sessions` less the slots kept for paired peers.
    case unpairedSessions(Int)
    /// Sessions with unpaired peers from one address.
    case perAddress(Int)
    /// Sessions from unpaired peers not yet accepted by a client (or opened to pair).
    case unaccepted(Int)
    /// Handshakes under way (`--max-pending`), none of them from a stranger we could evict.
    case pendingHandshakes(Int)
    /// Handshakes under way from one address (the `max-pending-per-address` setting).
    case pendingPerAddress(Int)

    /// What was reached, with the flag that sets it.
    package var description: String {
        switch self {
        case .sessions(let n): return "this host's session limit (\(n) sessions; --max-sessions) is reached"
        case .unpairedSessions(let n):
            return "this host's limit on sessions with unpaired peers (\(n); the rest of --max-sessions is kept for paired peers) is reached"
        case .perAddress(let n): return "this host's limit of \(n) sessions with unpaired peers per address is reached"
        case .unaccepted(let n): return "this host's limit of \(n) sessions waiting for a decision or a pairing is reached"
        case .pendingHandshakes(let n): return "this host's limit of \(n) handshakes under way (--max-pending) is reached"
        case .pendingPerAddress(let n): return "this host's limit of \(n) handshakes under way per address is reached"
        }
    }
}
