/// The daemon's view of its link to avahi-daemon, for `status`.
public enum AvahiStatus: String, Codable, Sendable, CaseIterable {
    /// No client yet.
    case starting = "starting"
    /// avahi-daemon is not reachable; peerd waits for it (AVAHI_CLIENT_NO_FAIL).
    case waitingForDaemon = "waitingForDaemon"
    /// avahi-daemon is registering its host name.
    case registering = "registering"
    /// Connected; browsing and publishing.
    case running = "running"
    /// avahi-daemon reported a host name collision.
    case collision = "collision"
    /// The client failed; peerd is creating a new one.
    case reconnecting = "reconnecting"
    /// Shutting down.
    case stopped = "stopped"
}
