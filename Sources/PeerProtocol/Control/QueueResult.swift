/// The result of `queue`.
public struct QueueResult: Codable, Sendable, Equatable {
    /// One entry per peer with messages waiting.
    public var queues: [QueueInfo]

    /// Creates it.
    public init(queues: [QueueInfo]) { self.queues = queues }
}
