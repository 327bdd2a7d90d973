/// The result of `subscribe`, sent before any event line.
public struct SubscribeResult: Codable, Sendable, Equatable {
    /// The newest sequence number at the moment of subscribing.
    public var seq: UInt64
    /// How many held events follow as replay (for `since`).
    public var replayed: Int
    /// True when events after `since` were already discarded: the client
    /// should fetch `peers` again rather than trust the replay alone.
    public var truncated: Bool
    /// This run of the daemon, a random id made when it starts (since
    /// 0.3.0): sequence numbers count from 1 in each run, so a client that
    /// resubscribes after a restart sees another `run` and knows its
    /// `since` belongs to the old one.
    public var run: String?

    /// Creates the result.
    public init(seq: UInt64, replayed: Int, truncated: Bool, run: String? = nil) {
        self.seq = seq
        self.replayed = replayed
        self.truncated = truncated
        self.run = run
    }
}
