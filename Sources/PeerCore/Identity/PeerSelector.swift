import FoundationEssentials

/// Picks one peer from a selector a person typed: a full UUID, a unique UUID
/// prefix, or a unique name.
public enum PeerSelector {
    /// Resolves `query` against `peers`, in this order: exact UUID, exact
    /// name, case-insensitive name, UUID prefix. Each step must be unique.
    public static func select(_ query: String, from peers: [PeerSnapshot]) -> Result<PeerSnapshot, ControlError> {
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
}
