/// The TXT format version peerd publishes (`txtvers=1`, docs/protocol.md
/// §2): here, with the control protocol, so `doctor` can compare a peer's
/// with its own without the daemon's rules.
package enum TXTVersion {
    /// The version this release speaks.
    package static let current = "1"
}
