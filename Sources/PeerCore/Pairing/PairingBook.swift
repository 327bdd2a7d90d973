/// The pairings in progress, by id: the bookkeeping, without I/O. Clients
/// name one by a unique prefix of its id.
package import PeerProtocol
package struct PairingBook: Sendable, Equatable {
    private var pairings: [String: PairingInfo] = [:]

    /// An empty book.
    package init() {}

    /// Every pairing in progress, soonest to expire first.
    package var all: [PairingInfo] { pairings.values.sorted { $0.expires < $1.expires } }

    /// The pairing with this id.
    package subscript(id: String) -> PairingInfo? { pairings[id] }

    /// A pairing started, or changed (its code became known).
    package mutating func record(_ info: PairingInfo) {
        pairings[info.id] = info
    }

    /// It ended (paired, failed or rejected).
    package mutating func remove(_ id: String) {
        pairings[id] = nil
    }

    /// The one pairing whose id starts with `prefix` (any case).
    package func match(_ prefix: String) -> Result<PairingInfo, ControlError> {
        let key = prefix.lowercased()
        let matches = pairings.keys.filter { $0.hasPrefix(key) }
        switch matches.count {
        case 1: return .success(pairings[matches[0]]!)
        case 0: return .failure(ControlError(.notFound, "no pairing '\(key)' in progress (it may have timed out)"))
        default: return .failure(ControlError(.ambiguous, "'\(key)' matches \(matches.count) pairings"))
        }
    }
}
