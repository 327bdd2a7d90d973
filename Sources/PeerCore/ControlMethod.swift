/// The requests a client can make.
public enum ControlMethod: String, Codable, Sendable, CaseIterable {
    /// Daemon status: names, port, Avahi state, counts.
    case status
    /// Every peer row.
    case peers
    /// One peer, by UUID, unique UUID prefix or unique name (`params.peer`).
    case peer
    /// Stream events; `params.since` replays held events after that number.
    case subscribe
}
