import FoundationEssentials

/// One datagram that arrived (``PeerDatagrams``).
public struct PeerDatagram: Sendable, Equatable {
    /// The sender.
    public let peer: UUID
    /// Its data.
    public let data: [UInt8]
    /// Datagrams for this reader dropped just before this one, because it
    /// read too slowly (peerd never waits for a reader).
    public let lost: UInt32

    /// A datagram.
    public init(peer: UUID, data: [UInt8], lost: UInt32) {
        self.peer = peer
        self.data = data
        self.lost = lost
    }
}
