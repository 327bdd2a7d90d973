/// The result of `send`.
public struct SendResult: Codable, Sendable, Equatable {
    /// Bytes queued for the peer.
    public var bytes: Int
    /// True when the message was stored for an offline paired peer.
    public var queued: Bool
    /// Plain sends: the session the message was queued on.
    public var session: Int?
    /// Plain sends: the message's number on that session (1, 2, …); a
    /// `delivered` event whose `through` reaches it says it arrived.
    public var number: UInt64?

    /// Creates it.
    public init(bytes: Int, queued: Bool = false, session: Int? = nil, number: UInt64? = nil) {
        self.bytes = bytes
        self.queued = queued
        self.session = session
        self.number = number
    }
}
