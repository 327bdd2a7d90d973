/// The result of `invitations`.
public struct InvitationsResult: Codable, Sendable, Equatable {
    /// Pending invitations, oldest first.
    public var invitations: [InvitationInfo]

    /// Creates it.
    public init(invitations: [InvitationInfo]) { self.invitations = invitations }
}
