/// The `inbox` result: what waits, and how full the inbox is.
public struct InboxResult: Codable, Sendable, Equatable {
    /// The waiting messages listed (oldest first, at most `max`).
    public var messages: [InboxMessage]
    /// Every waiting message (those listed or not).
    public var count: Int
    /// Bytes they take on disk.
    public var bytes: Int
    /// The most bytes the inbox holds (`--inbox-size`).
    public var limit: Int

    /// Creates it.
    public init(messages: [InboxMessage], count: Int, bytes: Int, limit: Int) {
        self.messages = messages
        self.count = count
        self.bytes = bytes
        self.limit = limit
    }
}
