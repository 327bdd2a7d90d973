/// The result of `peer`.
public struct PeerResult: Codable, Sendable, Equatable {
    /// The selected row.
    public var peer: PeerSnapshot

    /// Creates the result.
    public init(peer: PeerSnapshot) { self.peer = peer }
}
