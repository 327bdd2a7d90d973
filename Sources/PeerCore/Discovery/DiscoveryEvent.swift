/// What the Avahi bridge tells the identity actor, in the order Avahi said it.
package enum DiscoveryEvent: Sendable, Equatable {
    /// A resolver found (or re-found, with new data) a service.
    case resolved(ResolvedService)
    /// The browser reported the service gone.
    case removed(ServiceKey)
    /// The Avahi daemon went away: every service it reported is unknown now.
    case daemonLost
}
