import PeerCore

/// A callback from Avahi's thread, copied out of C memory into values that
/// may cross threads. Each carries the generation of the client it came
/// from, so events of a freed client are recognised and dropped.
package enum AvahiBridgeEvent: Sendable, Equatable {
    /// The client changed state.
    case clientState(generation: UInt64, AvahiConnectionState)
    /// Our entry group changed state.
    case groupState(generation: UInt64, EntryGroupState)
    /// The browser found a service instance. `ourOwn` is Avahi's
    /// `AVAHI_LOOKUP_RESULT_OUR_OWN`: the record is one of this host's. Avahi
    /// also sets it on another host's service whose name our entry group
    /// held at that moment; peerd browses again after a rename for that.
    case serviceFound(generation: UInt64, ServiceKey, ourOwn: Bool)
    /// The browser says the instance went away.
    case serviceRemoved(generation: UInt64, ServiceKey)
    /// The browser failed (Avahi's error text).
    case browserFailed(generation: UInt64, String)
    /// A resolver found, or re-found with changed data, a service.
    case resolved(generation: UInt64, ResolvedService)
    /// A resolver gave up (Avahi's error text).
    case resolveFailed(generation: UInt64, ServiceKey, String)

    /// The client generation the event belongs to.
    package var generation: UInt64 {
        switch self {
        case .clientState(let g, _), .groupState(let g, _), .serviceFound(let g, _, _), .serviceRemoved(let g, _),
             .browserFailed(let g, _), .resolved(let g, _), .resolveFailed(let g, _, _):
            return g
        }
    }
}
