/// Where the daemon's own DNS-SD service is, for `status`.
public enum PublicationState: String, Codable, Sendable, CaseIterable {
    /// Not registered (Avahi not running yet).
    case idle = "idle"
    /// Registered, not yet confirmed unique.
    case registering = "registering"
    /// Announced on the network.
    case established = "established"
    /// Registration failed; the status message says why.
    case failed = "failed"
}
