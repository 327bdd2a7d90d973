package import FoundationEssentials

/// A peer the daemon knew before it started (from the trust store): its row
/// is made at startup with its stored UUID, so the UUID survives restarts.
package struct KnownPeer: Sendable, Equatable {
    /// The peer id.
    package var peerID: String
    /// The UUID given to it when it was paired.
    package var uuid: UUID
    /// Its name at pairing time.
    package var name: String

    /// Creates it.
    package init(peerID: String, uuid: UUID, name: String) {
        self.peerID = peerID
        self.uuid = uuid
        self.name = name
    }
}
