/// A peer's session state, as clients see it.
public enum ConnectionState: String, Codable, Sendable, Hashable, CaseIterable {
    /// No session.
    case notConnected = "notConnected"
    /// A session is being set up.
    case connecting = "connecting"
    /// A session is up.
    case connected = "connected"
}
