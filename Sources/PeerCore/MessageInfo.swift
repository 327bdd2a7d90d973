import FoundationEssentials

/// A message from a peer, in a `message` event.
public struct MessageInfo: Codable, Sendable, Equatable {
    /// The sender's UUID.
    public var from: UUID
    /// The payload, base64.
    public var data: String
    /// The payload's size in bytes.
    public var size: Int

    /// Creates it.
    public init(from: UUID, data: String, size: Int) {
        self.from = from
        self.data = data
        self.size = size
    }
}
