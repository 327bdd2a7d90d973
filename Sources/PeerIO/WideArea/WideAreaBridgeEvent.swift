import PeerCore

/// What the wide-area link's thread reports, copied out of ldns into
/// values that cross threads, in the order the lookups finished: the
/// same shape as Avahi's bridge (``AvahiBridgeEvent``).
package enum WideAreaBridgeEvent: Sendable, Equatable {
    /// The domain's server was found (or given): where updates and queries
    /// go, and the zone that holds the domain.
    case ready(server: String, zone: DNSName)
    /// No server could be found or reached.
    case unreachable(String)
    /// The zone's serial (nil: no answer).
    case serial(UInt32?)
    /// The instance names the service type's pointers name (nil: no answer).
    case listed([String]?)
    /// One instance's lookup (nil: no SRV, or no answer).
    case resolved(String, WideAreaInstance?)
    /// Who holds the name this host wants.
    case nameChecked(WideAreaPublisher.NameCheck)
    /// How an update went.
    case updated(WideAreaPublisher.UpdateResult)
}
