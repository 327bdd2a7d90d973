import FoundationEssentials

/// An invitation waiting for a local decision.
public struct InvitationInfo: Codable, Sendable, Equatable {
    /// The invitation id, for `accept`/`decline`.
    public var id: String
    /// The inviter's UUID.
    public var peer: UUID
    /// The inviter's display name.
    public var name: String
    /// The inviter's proven peer id.
    public var peerId: String
    /// The context it sent (UTF-8; invalid bytes replaced).
    public var context: String
    /// When it is declined as timed out.
    public var expires: Date

    /// Creates it.
    public init(id: String, peer: UUID, name: String, peerId: String, context: String, expires: Date) {
        self.id = id
        self.peer = peer
        self.name = name
        self.peerId = peerId
        self.context = context
        self.expires = expires
    }
}
