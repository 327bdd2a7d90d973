import FoundationEssentials
import PeerCore
import PeerProtocol

/// The `add` requests waiting on their dial (issue 14, part 3): a session
/// to an address no mDNS gave, answered once the peer at it has proved its
/// key and has a row, or when the session ends before that. One job: it
/// holds the answers; ``SessionAdoption`` decides who the peer is.
@MainActor
package final class AddressDials {
    private var waiting: [ObjectIdentifier: @MainActor (Result<InviteResult, ControlError>) -> Void] = [:]

    /// An empty set of waiting requests.
    package init() {}

    /// Whether `session` is a dial to an address that no row owns yet.
    package func isWaiting(_ session: PeerSession) -> Bool { waiting[ObjectIdentifier(session)] != nil }

    /// Answers `done` when `session` (just dialled) proves who it is, or ends.
    package func wait(for session: PeerSession, done: @escaping @MainActor (Result<InviteResult, ControlError>) -> Void) {
        waiting[ObjectIdentifier(session)] = done
    }

    /// The peer proved its key and has `row`; `existing` when a session
    /// with it was already there (this dial is dropped, that one stays).
    package func proven(_ session: PeerSession, row: PeerSnapshot, existing: Bool) {
        waiting.removeValue(forKey: ObjectIdentifier(session))?(.success(InviteResult(peer: row, existing: existing)))
    }

    /// The session ended before its peer had a row: the request fails
    /// with the session's own words (refused, timed out), or "not a peerd
    /// session port" without quoting what another service sent (``AddAnswer``).
    package func ended(_ session: PeerSession, reason: CloseReason, text: String) {
        guard let done = waiting.removeValue(forKey: ObjectIdentifier(session)) else { return }
        let words = AddAnswer.text(reason: reason, text: text, address: session.remoteAddress, heard: session.heardAnything,
                                   proven: session.remoteStaticKey != nil)
        done(.failure(ControlError(.unreachable, words)))
    }
}
