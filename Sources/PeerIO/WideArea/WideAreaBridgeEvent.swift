import PeerCore

/// What the wide-area link's thread reports, copied out of ldns into
/// values that cross threads, in the order the lookups finished: the
/// same shape as Avahi's bridge (``AvahiBridgeEvent``).
package enum WideAreaBridgeEvent: Sendable, Equatable {
    /// The domain's server was found (or given): where updates and queries
    /// go, and the zone that holds the domain; and the other domains the
    /// host's search domains name for browsing (`b._dns-sd._udp`).
    case ready(server: String, zone: DNSName, browseDomains: [DNSName])
    /// No server could be found or reached.
    case unreachable(String)
    /// A browsed domain's zone serial (nil: no answer).
    case serial(DNSName, UInt32?)
    /// The instance names a browsed domain's pointers name (nil: no answer).
    case listed(DNSName, [String]?)
    /// One instance's lookup in a browsed domain (nil: no SRV, or no answer).
    case resolved(DNSName, String, WideAreaInstance?)
    /// Who holds the name this host wants.
    case nameChecked(WideAreaPublisher.NameCheck)
    /// How an update went.
    case updated(WideAreaPublisher.UpdateResult)
}
