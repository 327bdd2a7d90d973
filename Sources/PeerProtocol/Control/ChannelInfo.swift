import FoundationEssentials

/// The answer to `channel`, sent when the channel is over: how it ended
/// and the messages that went each way (docs/control-protocol.md,
/// "Message channels").
public struct ChannelInfo: Codable, Sendable, Equatable {
    /// The other peer's UUID.
    public var peer: UUID
    /// `closed` (the client ended its side and the peer acknowledged every
    /// message sent) or `reset`.
    public var state: String
    /// Messages read from the channel and sent to the peer.
    public var sent: Int64
    /// Of those, how many the peer's daemon acknowledged.
    public var acknowledged: Int64
    /// Messages from the peer written to the channel.
    public var received: Int64
    /// Why it was reset.
    public var detail: String?

    /// Creates it.
    public init(peer: UUID, state: String, sent: Int64, acknowledged: Int64, received: Int64, detail: String? = nil) {
        self.peer = peer
        self.state = state
        self.sent = sent
        self.acknowledged = acknowledged
        self.received = received
        self.detail = detail
    }
}
