/// The requests a client can make.
public enum ControlMethod: String, Codable, Sendable, CaseIterable {
    /// Daemon status: names, port, Avahi state, counts.
    case status
    /// Every peer row.
    case peers
    /// One peer, by UUID, unique UUID prefix or unique name (`params.peer`).
    case peer
    /// Stream events; `params.since` replays held events after that number.
    case subscribe
    /// Invite a peer to a session (`peer`, optional `context`, `timeout`).
    case invite
    /// The invitations waiting for a decision here.
    case invitations
    /// Accept an invitation (`invitation`).
    case accept
    /// Decline an invitation (`invitation`).
    case decline
    /// Close the session with a peer (`peer`).
    case disconnect
    /// Send one message to a connected peer (`peer`, `data` in base64).
    case send
    /// Pair with a peer (`peer`): opens or reuses a session, then the code exchange.
    case pair
    /// Confirm a pairing with the code shown on the other host (`pairing`, `code`).
    case pairAccept
    /// Reject a pairing (`pairing`).
    case pairReject
    /// The pairings in progress.
    case pairings
    /// The trust store: every paired peer.
    case paired
    /// Remove trust in a peer (`peer`) here, and tell it.
    case unpair
    /// The messages queued for offline paired peers.
    case queue
    /// The messages waiting in the inbox, without data (`peer`, `max`).
    case inbox
    /// Take messages from the inbox: they are returned and leave it (`peer`, `max`).
    case take
}
