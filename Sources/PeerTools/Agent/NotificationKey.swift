/// What a desktop notification stands for: one per invitation, transfer
/// or pairing, so a later event about the same thing replaces or closes
/// it (`replaces_id`) instead of stacking another beside it.
package enum NotificationKey: Hashable, Sendable {
    /// An invitation, by its id.
    case invitation(String)
    /// An incoming transfer, by its id: the offer, then its progress, then its end.
    case transfer(String)
    /// A pairing, by its id.
    case pairing(String)
    /// The notice that a peer's notifications are being held back (the rate limit), by peer id.
    case heldBack(String)
}
