import FoundationEssentials

/// A dialled endpoint proved another key than the peer advertised.
public struct IdentityMismatchInfo: Codable, Sendable, Equatable {
    /// The row we meant to reach (its state is not touched).
    public var peer: UUID?
    /// The id the peer advertised.
    public var expected: String
    /// The id the endpoint proved.
    public var actual: String
    /// The endpoint, `address:port`.
    public var address: String

    /// Creates it.
    public init(peer: UUID?, expected: String, actual: String, address: String) {
        self.peer = peer
        self.expected = expected
        self.actual = actual
        self.address = address
    }
}
