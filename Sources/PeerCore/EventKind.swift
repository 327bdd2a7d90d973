/// The kinds of event a subscriber receives.
public enum EventKind: String, Codable, Sendable {
    /// A peer appeared, or a lost peer came back (same UUID).
    case peerFound
    /// A peer's endpoints, name or TXT changed.
    case peerUpdated
    /// A peer's last endpoint went away; the row stays, marked lost.
    case peerLost
    /// A row was evicted to make room for another peer: it was unpaired,
    /// had no session and no endpoints. It leaves the list; if the peer
    /// returns, it comes back under the same UUID.
    case peerRemoved
    /// The peer's daemon acknowledged messages sent on a session: every
    /// message up to `delivery.through` reached it (live only, never replayed).
    case delivered
    /// A peer's session state changed; `reason` says why.
    case stateChanged
    /// Our invitation never reached the peer: no address answered, or the
    /// handshake failed (`reason`). The peer's state did not change.
    case inviteFailed
    /// A peer invites us; a client must `accept` or `decline`.
    case invitation
    /// A message arrived from a connected peer (live only, never replayed).
    case message
    /// A message no client took was stored in the inbox (no data; for watchers).
    case stored
    /// A dialled peer proved a key that does not match its advertised id.
    case identityMismatch
    /// A peer asks to pair; `pairing.code` is what its user sees.
    case pairingRequest
    /// Our pairing request reached the code: show `pairing.code` to the user.
    case pairingCode
    /// The pairing completed; the peer is trusted.
    case paired
    /// A pairing failed; `pairingFailure` says why.
    case pairingFailed
    /// Trust in the peer was removed (here or by the peer).
    case unpaired
    /// The last event before the daemon drops the subscription.
    case error
}
