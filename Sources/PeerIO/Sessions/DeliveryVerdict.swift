/// What the owner of a session says of a message that arrived on it
/// (``PeerSessionDelegate/session(_:delivered:app:)``).
package enum DeliveryVerdict: Equatable, Sendable {
    /// A client has it: it may be acknowledged.
    case safe
    /// It is being stored: the session hands over nothing more until
    /// ``PeerSession/stored(refusal:)`` says how that ended.
    case pending
    /// Nobody can take it: the session closes as `busy` with these words,
    /// after acknowledging what came before.
    case refused(String)
    /// The message's app cannot take it (its inbox is full, or no client
    /// holds it here): that app alone is held back (`appBusy`), with these
    /// words, and the session goes on. Only for an app's message.
    case appRefused(String)
}
