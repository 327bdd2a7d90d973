import PeerProtocol

/// `peerctl --json top` when stdout is not a terminal: everything the view shows.
struct TopSnapshot: Codable {
    /// Every peer row.
    let peers: [PeerSnapshot]
    /// Invitations waiting here.
    let invitations: [InvitationInfo]
    /// Pairings in progress.
    let pairings: [PairingInfo]
    /// Transfers in progress and recent ones.
    let transfers: [TransferInfo]
    /// Messages queued for offline paired peers.
    let queues: [QueueInfo]
}
