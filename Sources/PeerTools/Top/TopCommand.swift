import FoundationEssentials

/// What a key asks `peerctl top`'s shell to do beyond redrawing.
package enum TopCommand: Equatable, Sendable {
    /// Leave, restoring the terminal.
    case quit
    /// Clear and draw everything again (Ctrl-L).
    case redrawAll
    /// Invite the peer.
    case invite(UUID)
    /// Accept the invitation.
    case accept(invitation: String)
    /// Decline the invitation.
    case decline(invitation: String)
    /// Pair with the peer.
    case pair(UUID)
    /// Close the session with the peer.
    case disconnect(UUID)
}
