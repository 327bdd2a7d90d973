/// The result of `subscribe`, sent before any event line.
public struct SubscribeResult: Codable, Sendable, Equatable {
    /// The newest sequence number at the moment of subscribing.
    public var seq: UInt64
    /// How many held events follow as replay (for `since`).
    public var replayed: Int
    /// True when events after `since` were already discarded: the client
    /// should fetch `peers` again rather than trust the replay alone.
    public var truncated: Bool

    /// Creates the result.
    public init(seq: UInt64, replayed: Int, truncated: Bool) {
        self.seq = seq
        self.replayed = replayed
        self.truncated = truncated
    }
}
