/// Where the daemon's own DNS-SD service is, for `status`.
public enum PublicationState: String, Codable, Sendable {
    /// Not registered (Avahi not running yet).
    case idle
    /// Registered, not yet confirmed unique.
    case registering
    /// Announced on the network.
    case established
    /// Registration failed; the status message says why.
    case failed
}
