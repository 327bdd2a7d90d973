/// Why a message of an app cannot go to a peer's session now
/// (``PeerSession``'s `appRefusal`).
package enum AppSendRefusal: Sendable, Equatable {
    /// The peer's release has no apps (no feature `apps`).
    case unsupported(release: String)
    /// The peer refused the app's messages (`appBusy`), with its words,
    /// and has not said it has room again.
    case busy(String)
}
