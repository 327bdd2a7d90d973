/// The result of `peers`.
public struct PeersResult: Codable, Sendable, Equatable {
    /// Every row, in first-seen order.
    public var peers: [PeerSnapshot]

    /// Creates the result.
    public init(peers: [PeerSnapshot]) { self.peers = peers }
}
