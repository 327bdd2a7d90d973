/// The result of `send`.
public struct SendResult: Codable, Sendable, Equatable {
    /// Bytes queued for the peer.
    public var bytes: Int

    /// Creates it.
    public init(bytes: Int) { self.bytes = bytes }
}
