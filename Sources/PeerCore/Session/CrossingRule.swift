package import FoundationEssentials

/// One session per pair (docs/protocol.md §6), decided when an incoming
/// connection has proven the peer's key while another session with the
/// same peer exists.
///
/// Rule: the connection dialled by the peer whose peer id is smaller
/// (byte-wise on the lowercase hex) is the session; the other is closed as
/// `duplicate`. A session that is connected, or an incoming one that came
/// first, always stays. A dial of ours that has not authenticated within
/// 1 s (a stale address, a dead port) does not count: real crossings
/// complete in milliseconds, and a proven connection must not wait on a
/// doubtful one.
package enum CrossingRule {
    /// The session that exists for the peer.
    package struct Existing: Sendable, Equatable {
        /// It is connected (accepted).
        package var connected: Bool
        /// We dialled it (rather than accepted it).
        package var dialledByUs: Bool
        /// It has proven the peer's key.
        package var authenticated: Bool
        /// Seconds since it started.
        package var age: TimeInterval

        /// Creates it.
        package init(connected: Bool, dialledByUs: Bool, authenticated: Bool, age: TimeInterval) {
            self.connected = connected
            self.dialledByUs = dialledByUs
            self.authenticated = authenticated
            self.age = age
        }
    }

    /// What happens to the new incoming connection.
    package enum Verdict: Sendable, Equatable {
        /// It is a duplicate: close it, keep the existing session.
        case closeIncoming
        /// It wins: it replaces our dial, which is closed; accept it at once
        /// (we asked for the session too).
        case replaceExisting
    }

    /// Decides between `existing` and a new incoming connection from the
    /// peer `theirs`, this host being `ours`.
    package static func decide(existing: Existing, ours: String, theirs: String) -> Verdict {
        if existing.connected || !existing.dialledByUs { return .closeIncoming }
        let ourDialIsLive = existing.authenticated || existing.age < 1
        return ourDialIsLive && ours < theirs ? .closeIncoming : .replaceExisting
    }
}
