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
    /// The app invited (issue 23); absent for the default app's invitation.
    public var app: String?
    /// An app invitation's context as sent, base64 (bytes, up to 4 KiB;
    /// `context` is the same read as UTF-8).
    public var contextData: String?

    /// Creates it.
    public init(id: String, peer: UUID, name: String, peerId: String, context: String, expires: Date, app: String? = nil,
                contextData: String? = nil) {
        self.app = app
        self.contextData = contextData
        self.id = id
        self.peer = peer
        self.name = name
        self.peerId = peerId
        self.context = context
        self.expires = expires
    }
}
