/// What the I/O layer must do for the Avahi client lifecycle.
package enum AvahiClientAction: Sendable, Equatable {
    /// Create a client with `AVAHI_CLIENT_NO_FAIL`.
    case createClient
    /// Free the client (which frees its browsers, resolvers and entry groups)
    /// and create a new one. Avahi's contract: a client that reported
    /// `AVAHI_CLIENT_FAILURE` is dead and must be freed.
    case recreateClient
    /// Retry `createClient` after a delay (creation itself failed).
    case scheduleRetry(seconds: Int)
    /// Start the service browsers.
    case startBrowsing
    /// Tell the publisher the client runs.
    case publish
    /// Withdraw our records (the daemon's host name is being re-registered).
    case resetPublication
    /// Every service the old client reported is unknown now.
    case forgetDiscoveries
    /// Free everything and stop.
    case shutdown
}
