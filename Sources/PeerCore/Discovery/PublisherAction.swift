/// What the I/O layer must do for our own DNS-SD service.
package enum PublisherAction: Sendable, Equatable {
    /// Reset the entry group, add the service under `name`, and commit.
    case register(name: String)
    /// Reset the entry group (withdraw the records).
    case reset
    /// Compute `avahi_alternative_service_name` of `name` and report it with
    /// ``ServicePublisher/alternativeChosen(_:)``.
    case chooseAlternative(after: String)
    /// Log a message at notice level.
    case log(String)
}
