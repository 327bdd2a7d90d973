/// The pure state machine of peerd's link to avahi-daemon, after avahi's
/// `avahi-browse.c` and `client-publish-service.c`:
/// - the client is created with `AVAHI_CLIENT_NO_FAIL`, so an absent daemon
///   is a `connecting` state, not an error;
/// - `AVAHI_CLIENT_FAILURE` (a daemon restart shows as `AVAHI_ERR_DISCONNECTED`)
///   means the client is dead: free it with all its objects and create a
///   new one;
/// - `S_REGISTERING` and `S_COLLISION` withdraw our service; `S_RUNNING`
///   (re)starts browsing and publishing.
package import PeerProtocol
package struct AvahiClientLifecycle: Sendable {
    /// The externally visible state.
    package private(set) var status: AvahiStatus = .starting
    /// The last failure message, if any.
    package private(set) var lastMessage: String?
    /// Bumped every time a client is created, so stale callbacks from a freed
    /// client can be recognised and dropped.
    package private(set) var generation: UInt64 = 0
    private var browsing = false
    private var stopped = false

    /// A lifecycle before start.
    package init() {}

    /// Start: create the first client.
    package mutating func start() -> [AvahiClientAction] {
        guard !stopped else { return [] }
        generation += 1
        browsing = false
        return [.createClient]
    }

    /// `avahi_client_new` returned NULL even with NO_FAIL (no D-Bus, no memory).
    package mutating func creationFailed(message: String) -> [AvahiClientAction] {
        guard !stopped else { return [] }
        status = .reconnecting
        lastMessage = message
        return [.scheduleRetry(seconds: 1)]
    }

    /// The retry timer fired.
    package mutating func retryDue() -> [AvahiClientAction] { start() }

    /// The client reported a new state. Callbacks from an older client
    /// (`generation` mismatch) are ignored.
    package mutating func clientStateChanged(_ state: AvahiConnectionState, generation: UInt64) -> [AvahiClientAction] {
        guard !stopped, generation == self.generation else { return [] }
        switch state {
        case .running:
            status = .running
            lastMessage = nil
            var actions: [AvahiClientAction] = []
            if !browsing {
                browsing = true
                actions.append(.startBrowsing)
            }
            actions.append(.publish)
            return actions
        case .registering:
            status = .registering
            return [.resetPublication]
        case .collision:
            status = .collision
            return [.resetPublication]
        case .connecting:
            status = .waitingForDaemon
            return []
        case .failure(_, let message):
            status = .reconnecting
            lastMessage = message
            self.generation += 1
            browsing = false
            return [.forgetDiscoveries, .recreateClient]
        }
    }

    /// The daemon is stopping.
    package mutating func stop() -> [AvahiClientAction] {
        guard !stopped else { return [] }
        stopped = true
        status = .stopped
        return [.shutdown]
    }
}
