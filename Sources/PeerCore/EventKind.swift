/// The kinds of event a subscriber receives.
public enum EventKind: String, Codable, Sendable {
    /// A peer appeared, or a lost peer came back (same UUID).
    case peerFound
    /// A peer's endpoints, name or TXT changed.
    case peerUpdated
    /// A peer's last endpoint went away; the row stays, marked lost.
    case peerLost
    /// The last event before the daemon drops the subscription.
    case error
}
