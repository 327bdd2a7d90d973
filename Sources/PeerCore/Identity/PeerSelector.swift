package import FoundationEssentials
package import PeerProtocol

/// Picks one peer from a selector a person typed: a full UUID, a unique UUID
/// prefix, or a unique name.
package enum PeerSelector {
    /// Resolves `query` against `peers`, in this order: exact UUID, exact
    /// name, case-insensitive name, UUID prefix. Each step must be unique.
    package static func select(_ query: String, from peers: [PeerSnapshot]) -> Result<PeerSnapshot, ControlError> {
        // Most selectors have no space to trim: they are used as they are
        // (trimming builds two strings, and a script sends by the thousand).
        let padded = query.first?.isWhitespace == true || query.last?.isWhitespace == true
        let trimmed = padded ? String(query.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed()) : query
        guard !trimmed.isEmpty else { return .failure(ControlError(.invalidParams, "empty peer selector")) }
        if trimmed.utf8.count == 36, let uuid = UUID(uuidString: trimmed), let match = peers.first(where: { $0.id == uuid }) {
            return .success(match)
        }
        let steps: [(String, (PeerSnapshot) -> Bool)] = [
            ("name", { $0.name == trimmed }),
            ("name", { $0.name.lowercased() == trimmed.lowercased() }),
            ("UUID prefix", { $0.id.uuidString.lowercased().hasPrefix(trimmed.lowercased()) }),
        ]
        for (what, matches) in steps {
            let found = peers.filter(matches)
            if found.count == 1 { return .success(found[0]) }
            if found.count > 1 {
                let list = found.prefix(5).map { "\($0.id.uuidString.lowercased()) (\($0.name))" }.joined(separator: ", ")
                return .failure(ControlError(.ambiguous, "'\(trimmed)' matches \(found.count) peers by \(what): \(list); give more of the UUID"))
            }
        }
        return .failure(ControlError(.notFound, "no peer matches '\(trimmed)'"))
    }

    /// The two selectors scripts use, a full UUID and an exact name,
    /// decided in one pass over the ids with no array built: the id
    /// ``select(_:from:)`` would choose, or nil when only it can say (a
    /// padded, case-folded, prefix, ambiguous or unknown selector). A row's
    /// UUID wins over a name, as there. `name` gives a row's name; the
    /// JSON `send` path asks this once a message (issue 25, point 4).
    package static func direct(_ query: String, among ids: [UUID], name: (UUID) -> String?) -> UUID? {
        guard let first = query.utf8.first, let last = query.utf8.last,
              !isSpace(first), !isSpace(last) else { return nil }
        let uuid = query.utf8.count == 36 ? UUID(uuidString: query) : nil
        var named: UUID?
        var names = 0
        for id in ids {
            if id == uuid { return id }
            if names < 2, name(id) == query {
                named = id
                names += 1
            }
        }
        return names == 1 ? named : nil
    }

    /// A first or last byte `select` might trim: ASCII controls and space,
    /// and any byte of a multi-byte character (some are spaces); such a
    /// selector goes the full way.
    private static func isSpace(_ byte: UInt8) -> Bool { byte < 0x21 || byte >= 0x7F }
}
