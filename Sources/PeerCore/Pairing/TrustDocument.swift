/// The trust store's file contents: versioned, one record per paired peer.
public struct TrustDocument: Codable, Sendable, Equatable {
    /// The format version this build writes and reads.
    public static let currentVersion = 1

    /// The format version.
    public var version: Int
    /// Paired peers.
    public var peers: [TrustRecord]

    /// A document with these peers.
    public init(peers: [TrustRecord]) {
        version = Self.currentVersion
        self.peers = peers
    }
}
