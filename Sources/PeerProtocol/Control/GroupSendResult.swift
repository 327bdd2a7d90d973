/// The result of a group `send`: one entry per peer, in the order asked
/// (for `all`: the connected peers, by name). It never fails as a whole
/// because one peer is gone.
public struct GroupSendResult: Codable, Sendable, Equatable {
    /// Each peer's outcome.
    public var results: [GroupSendEntry]

    /// Creates it.
    public init(results: [GroupSendEntry]) { self.results = results }
}
