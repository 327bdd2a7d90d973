/// Events a sequence could not deliver: reported as such, never hidden.
public struct EventGap: Sendable, Equatable {
    /// Why.
    public enum Reason: String, Sendable, Equatable {
        /// The daemon restarted: what happened before it came back is lost,
        /// and its numbers start over.
        case daemonRestarted
        /// The daemon no longer held every event after the last one seen
        /// (more than its `--event-history` happened meanwhile).
        case truncated
    }

    /// Why.
    public var reason: Reason
    /// The last event number seen before the gap (in the old run, for a restart).
    public var after: UInt64
}
