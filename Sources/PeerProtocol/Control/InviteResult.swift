/// The result of `invite`.
public struct InviteResult: Codable, Sendable, Equatable {
    /// The peer row, with its state.
    public var peer: PeerSnapshot
    /// True when a session already existed or was being set up: no new one was made.
    public var existing: Bool
    /// `invite` for an app: the app's state with the peer now
    /// (`connecting` while its invitation is out; issue 23).
    public var app: AppStateInfo?
    /// `true` when the peer's session was accepted for an app alone and
    /// the default app's invitation went over it (protocol.md §10, "The
    /// default app joins"): the answer comes as `stateChanged` (`connected`)
    /// or `inviteFailed`. Absent otherwise.
    public var joining: Bool?

    /// Creates it.
    public init(peer: PeerSnapshot, existing: Bool, app: AppStateInfo? = nil, joining: Bool? = nil) {
        self.app = app
        self.joining = joining
        self.peer = peer
        self.existing = existing
    }
}
