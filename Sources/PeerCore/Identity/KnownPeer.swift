import FoundationEssentials

/// A peer the daemon knew before it started (from the trust store): its row
/// is made at startup with its stored UUID, so the UUID survives restarts.
public struct KnownPeer: Sendable, Equatable {
    /// The peer id.
    public var peerID: String
    /// The UUID given to it when it was paired.
    public var uuid: UUID
    /// Its name at pairing time.
    public var name: String

    /// Creates it.
    public init(peerID: String, uuid: UUID, name: String) {
        self.peerID = peerID
        self.uuid = uuid
        self.name = name
    }
}
