/// A peer's session state, as clients see it.
public enum ConnectionState: String, Codable, Sendable, Hashable {
    /// No session.
    case notConnected
    /// A session is being set up.
    case connecting
    /// A session is up.
    case connected
}
