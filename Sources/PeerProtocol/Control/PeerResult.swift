/// The result of `peer`.
public struct PeerResult: Codable, Sendable, Equatable {
    /// The selected row.
    public var peer: PeerSnapshot
    /// Its datagram path, when it is connected (since 0.3.0; `peer` alone).
    public var datagrams: DatagramInfo?
    /// The path its file and stream bytes take, when it is connected
    /// (since 0.4.0; `peer` alone).
    public var bulk: BulkPathInfo?

    /// Creates the result.
    public init(peer: PeerSnapshot) { self.peer = peer }

    /// Creates the result of `peer`, with the peer's datagram path.
    public init(peer: PeerSnapshot, datagrams: DatagramInfo?) {
        self.peer = peer
        self.datagrams = datagrams
    }
}
