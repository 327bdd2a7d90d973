/// The result of `invite`.
public struct InviteResult: Codable, Sendable, Equatable {
    /// The peer row, with its state.
    public var peer: PeerSnapshot
    /// True when a session already existed or was being set up: no new one was made.
    public var existing: Bool

    /// Creates it.
    public init(peer: PeerSnapshot, existing: Bool) {
        self.peer = peer
        self.existing = existing
    }
}
