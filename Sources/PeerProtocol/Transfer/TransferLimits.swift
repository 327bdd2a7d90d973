/// The limits of an offer that a sender checks before it offers and the
/// receiver checks again (docs/protocol.md §8): here, with the control
/// protocol, so `peerctl send-file` refuses what the daemon would refuse,
/// in the same words, without the daemon's rules.
package enum TransferLimits {
    /// The most files in one offer.
    package static let maxFiles = 100_000
}
