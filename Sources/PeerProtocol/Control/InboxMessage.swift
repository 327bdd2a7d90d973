import FoundationEssentials

/// One message waiting in the inbox, as `inbox` lists it (no data) and as a
/// `stored` event reports it.
public struct InboxMessage: Codable, Sendable, Equatable {
    /// The inbox id.
    public var id: UInt64
    /// The sender's UUID, if it has a row now.
    public var from: UUID?
    /// The sender's peer id.
    public var peerId: String
    /// The sender's name, if known (a row or the trust store).
    public var name: String?
    /// When it was stored.
    public var received: Date
    /// The data's size in bytes.
    public var size: Int
    /// The app it waits for; absent for the default app (issue 23).
    public var app: String?

    /// Creates it.
    public init(id: UInt64, from: UUID?, peerId: String, name: String?, received: Date, size: Int, app: String? = nil) {
        self.app = app
        self.id = id
        self.from = from
        self.peerId = peerId
        self.name = name
        self.received = received
        self.size = size
    }
}
