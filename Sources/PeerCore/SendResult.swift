/// The result of `send`.
public struct SendResult: Codable, Sendable, Equatable {
    /// Bytes queued for the peer.
    public var bytes: Int
    /// True when the message was stored for an offline paired peer.
    public var queued: Bool

    /// Creates it.
    public init(bytes: Int, queued: Bool = false) {
        self.bytes = bytes
        self.queued = queued
    }
}
