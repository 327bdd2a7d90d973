/// The states an Avahi client reports (`AvahiClientState`), as a Swift enum
/// the pure lifecycle can reason about.
package enum AvahiConnectionState: Sendable, Equatable {
    /// `AVAHI_CLIENT_S_REGISTERING`: the daemon is registering its host records.
    case registering
    /// `AVAHI_CLIENT_S_RUNNING`: ready to browse and publish.
    case running
    /// `AVAHI_CLIENT_S_COLLISION`: the daemon's host name collided.
    case collision
    /// `AVAHI_CLIENT_CONNECTING`: the daemon is absent; NO_FAIL makes the
    /// client wait for it.
    case connecting
    /// `AVAHI_CLIENT_FAILURE`; `disconnected` when the error was
    /// `AVAHI_ERR_DISCONNECTED` (the daemon went away).
    case failure(disconnected: Bool, message: String)
}
