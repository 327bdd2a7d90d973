/// Request parameters. Each method reads the fields it needs; the others must
/// be absent or are ignored.
public struct ControlParams: Codable, Sendable, Equatable {
    /// `peer`: the selector (UUID, unique UUID prefix, or unique name).
    public var peer: String?
    /// `subscribe`: replay held events with a sequence number above this.
    public var since: UInt64?

    /// Creates parameters.
    public init(peer: String? = nil, since: UInt64? = nil) {
        self.peer = peer
        self.since = since
    }
}
