/// The daemon's view of its link to avahi-daemon, for `status`.
public enum AvahiStatus: String, Codable, Sendable {
    /// No client yet.
    case starting
    /// avahi-daemon is not reachable; peerd waits for it (AVAHI_CLIENT_NO_FAIL).
    case waitingForDaemon
    /// avahi-daemon is registering its host name.
    case registering
    /// Connected; browsing and publishing.
    case running
    /// avahi-daemon reported a host name collision.
    case collision
    /// The client failed; peerd is creating a new one.
    case reconnecting
    /// Shutting down.
    case stopped
}
