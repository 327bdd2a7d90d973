/// What one discovery event did to the peer list.
package import PeerProtocol
package enum PeerChange: Sendable, Equatable {
    /// A new peer row (or a lost one that returned).
    case found(PeerSnapshot)
    /// A peer's endpoints, name or TXT changed.
    case updated(PeerSnapshot)
    /// A peer's last endpoint went away; the row stays, marked lost.
    case lost(PeerSnapshot)
    /// A row was evicted to make room: an unpaired peer with no session
    /// and no endpoints, the least recently seen. Should it come back, it
    /// gets the same UUID (the registry remembers evicted ids, bounded).
    case evicted(PeerSnapshot)
    /// A new peer was not tracked because the registry is at a cap
    /// (reported once per peer): the unverified-row cap when `unverified`,
    /// else the peer cap.
    case rejectedAtCap(PeerKey, unverified: Bool)
}
