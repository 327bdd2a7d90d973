import FoundationEssentials

/// A message from a peer, in a `message` event or a `take` result.
public struct MessageInfo: Codable, Sendable, Equatable {
    /// The sender's UUID; nil when it has no row now (an unpaired sender of
    /// a stored message, after a restart).
    public var from: UUID?
    /// The sender's peer id.
    public var peerId: String?
    /// The payload, base64.
    public var data: String
    /// The payload's size in bytes.
    public var size: Int
    /// Its inbox id, for a message that waited in the inbox.
    public var inbox: UInt64?
    /// When it was stored, for a message that waited in the inbox.
    public var received: Date?
    /// The app it is for; absent for the default app (issue 23).
    public var app: String?

    /// Creates it.
    public init(from: UUID?, peerId: String? = nil, data: String, size: Int, inbox: UInt64? = nil, received: Date? = nil, app: String? = nil) {
        self.app = app
        self.from = from
        self.peerId = peerId
        self.data = data
        self.size = size
        self.inbox = inbox
        self.received = received
    }
}
