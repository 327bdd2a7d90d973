/// Which path a connected peer's file and stream bytes take (`peer`'s
/// `bulk`, since 0.4.0; docs/control-protocol.md, "peer").
public struct BulkPathInfo: Codable, Sendable, Equatable {
    /// `lane` (a connection of their own, docs/protocol.md §12),
    /// `opening` (the lane is being opened: bulk waits, at most 5 s), or
    /// `session` (on the session's own connection, as before 0.4.0).
    public var path: String
    /// Why bulk is on the session: the peer's release has no lane, the
    /// lane's port could not be reached, and so on. Nil on a lane.
    public var reason: String?
    /// The lane port the lane was to be opened to, when one was offered:
    /// the one a firewall must let through.
    public var port: Int?
    /// Whose port ``port`` is: `peer` (this host dialled it) or `self`
    /// (this host offered it, and the peer dialled it).
    public var portOf: String?

    /// Creates the info.
    public init(path: String, reason: String? = nil, port: Int? = nil, portOf: String? = nil) {
        self.path = path
        self.reason = reason
        self.port = port
        self.portOf = portOf
    }

    /// The words of ``path`` (wire values, pinned by tests).
    public static let lane = "lane", opening = "opening", session = "session"
}
