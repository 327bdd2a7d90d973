/// What follows when one of our dials ends before it proved the peer's key.
///
/// A dial that failed its handshake, or met another key, tries the peer's
/// next address; a dial we closed ourselves (unpair, shutdown, a newer
/// connection) is not retried. When no address is left the invitation has
/// failed, and the peer's state is left alone: a spoofed or dead endpoint
/// says nothing about the peer.
package import PeerProtocol
package enum DialRetry {
    /// The decision.
    package enum Next: Sendable, Equatable {
        /// Not such a dial: the session's end is reported as usual.
        case notADial
        /// Dial the next of the remaining endpoints.
        case tryNext
        /// The invitation failed (`inviteFailed`); the state does not change.
        case inviteFailed
    }

    /// Decides for a session that ended with `reason`.
    package static func next(dialledByUs: Bool, authenticated: Bool, reason: CloseReason, remaining: Int) -> Next {
        guard dialledByUs, !authenticated else { return .notADial }
        let retryable = reason == .handshakeFailed || reason == .identityMismatch
        return retryable && remaining > 0 ? .tryNext : .inviteFailed
    }
}
