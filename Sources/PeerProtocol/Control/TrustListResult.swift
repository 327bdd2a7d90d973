/// The result of `paired`: the trust store.
public struct TrustListResult: Codable, Sendable, Equatable {
    /// Paired peers.
    public var peers: [TrustRecord]

    /// Creates it.
    public init(peers: [TrustRecord]) { self.peers = peers }
}
