/// What the owner of a session says of a message that arrived on it
/// (``PeerSessionDelegate/session(_:delivered:)``).
public enum DeliveryVerdict: Equatable, Sendable {
    /// A client has it: it may be acknowledged.
    case safe
    /// It is being stored: the session hands over nothing more until
    /// ``PeerSession/stored(refusal:)`` says how that ended.
    case pending
    /// Nobody can take it: the session closes as `busy` with these words,
    /// after acknowledging what came before.
    case refused(String)
}
