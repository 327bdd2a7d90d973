/// The pure state machine of our one DNS-SD service.
///
/// Avahi's contract: on `AVAHI_ENTRY_GROUP_COLLISION` (or an immediate
/// `AVAHI_ERR_COLLISION` from `add_service`), pick
/// `avahi_alternative_service_name(name)` and register again. The name in
/// use is what `status` shows.
package import PeerProtocol
package struct ServicePublisher: Sendable {
    /// The name the user asked for.
    package let requestedName: String
    /// The name in use (or next to be used).
    package private(set) var name: String
    /// Where the service is.
    package private(set) var state: PublicationState = .idle
    /// Why it failed, when `state` is `.failed`.
    package private(set) var failure: String?

    /// A publisher for `name`.
    package init(name: String) {
        requestedName = name
        self.name = name
    }

    /// The client is running: register if not already.
    package mutating func clientRunning() -> [PublisherAction] {
        switch state {
        case .idle, .failed:
            state = .registering
            failure = nil
            return [.register(name: name)]
        case .registering, .established:
            return []
        }
    }

    /// The client is re-registering or collided: withdraw, register again on running.
    package mutating func clientReset() -> [PublisherAction] {
        guard state != .idle else { return [] }
        state = .idle
        return [.reset]
    }

    /// The client was freed; its entry group went with it.
    package mutating func clientLost() {
        state = .idle
    }

    /// `AVAHI_ENTRY_GROUP_ESTABLISHED`.
    package mutating func established() -> [PublisherAction] {
        guard state == .registering else { return [] }
        state = .established
        return [.log("service '\(name)' established")]
    }

    /// `AVAHI_ENTRY_GROUP_COLLISION`, or `add_service` said `AVAHI_ERR_COLLISION`.
    package mutating func collision() -> [PublisherAction] {
        guard state == .registering || state == .established else { return [] }
        return [.chooseAlternative(after: name)]
    }

    /// The I/O layer computed the alternative name.
    package mutating func alternativeChosen(_ alternative: String) -> [PublisherAction] {
        let old = name
        name = alternative
        state = .registering
        return [.log("service name '\(old)' collides; renamed to '\(alternative)'"), .register(name: alternative)]
    }

    /// `AVAHI_ENTRY_GROUP_FAILURE` or a registration call failed.
    package mutating func failed(_ message: String) -> [PublisherAction] {
        state = .failed
        failure = message
        return [.log("publishing '\(name)' failed: \(message)")]
    }
}
