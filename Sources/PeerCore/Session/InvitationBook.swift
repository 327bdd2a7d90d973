/// The invitations waiting for a client's answer, by id: the bookkeeping,
/// without I/O. Clients name one by a unique prefix of its id.
package import PeerProtocol
package struct InvitationBook: Sendable, Equatable {
    private var pending: [String: InvitationInfo] = [:]

    /// An empty book.
    package init() {}

    /// Every waiting invitation, soonest to expire first.
    package var all: [InvitationInfo] { pending.values.sorted { $0.expires < $1.expires } }

    /// An invitation now waits.
    package mutating func add(_ info: InvitationInfo) {
        pending[info.id] = info
    }

    /// It was answered, timed out, or its session ended.
    package mutating func remove(_ id: String) {
        pending[id] = nil
    }

    /// The one invitation whose id starts with `prefix` (any case).
    package func match(_ prefix: String) -> Result<InvitationInfo, ControlError> {
        let key = prefix.lowercased()
        guard !key.isEmpty else { return .failure(ControlError(.invalidParams, "an invitation id is needed")) }
        let matches = pending.keys.filter { $0.hasPrefix(key) }
        switch matches.count {
        case 1: return .success(pending[matches[0]]!)
        case 0: return .failure(ControlError(.notFound, "no pending invitation '\(key)' (it may have timed out)"))
        default: return .failure(ControlError(.ambiguous, "'\(key)' matches \(matches.count) invitations"))
        }
    }
}
