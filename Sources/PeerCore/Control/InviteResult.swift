/// The result of `invite`.
public struct InviteResult: Codable, Sendable, Equatable {
    /// The peer row, with its state.
    public var peer: PeerSnapshot
    /// True when a session already existed or was being set up: no new one was made.
    public var existing: Bool
    /// `invite` for an app: the app's state with the peer now
    /// (`connecting` while its invitation is out; issue 23).
    public var app: AppStateInfo?

    /// Creates it.
    public init(peer: PeerSnapshot, existing: Bool, app: AppStateInfo? = nil) {
        self.app = app
        self.peer = peer
        self.existing = existing
    }
}
