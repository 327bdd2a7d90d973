import FoundationEssentials

/// Messages waiting for one offline paired peer.
public struct QueueInfo: Codable, Sendable, Equatable {
    /// The peer's UUID; nil when it is no longer paired (the queue waits
    /// for nobody until it pairs again or the file is removed).
    public var peer: UUID?
    /// Its name.
    public var name: String
    /// Its peer id.
    public var peerId: String
    /// How many messages wait.
    public var messages: Int
    /// How many bytes they hold.
    public var bytes: Int
    /// The peer's words when it last closed the session as `busy` (its
    /// inbox was full), until it acknowledges messages again.
    public var busy: String?
    /// The app the queue is for; absent for the default app (issue 23).
    public var app: String?

    /// Creates it.
    public init(peer: UUID?, name: String, peerId: String, messages: Int, bytes: Int, busy: String? = nil, app: String? = nil) {
        self.app = app
        self.busy = busy
        self.peer = peer
        self.name = name
        self.peerId = peerId
        self.messages = messages
        self.bytes = bytes
    }
}
