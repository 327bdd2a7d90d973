/// The kinds of event a subscriber receives.
public enum EventKind: String, Codable, Sendable, CaseIterable {
    /// A peer appeared, or a lost peer came back (same UUID).
    case peerFound = "peerFound"
    /// A peer's endpoints, name or TXT changed.
    case peerUpdated = "peerUpdated"
    /// A peer's last endpoint went away; the row stays, marked lost.
    case peerLost = "peerLost"
    /// A row was evicted to make room for another peer: it was unpaired,
    /// had no session and no endpoints. It leaves the list; if the peer
    /// returns, it comes back under the same UUID.
    case peerRemoved = "peerRemoved"
    /// The peer's daemon acknowledged messages sent on a session: every
    /// message up to `delivery.through` reached it (live only, never replayed).
    case delivered = "delivered"
    /// The peer's daemon refused an app's messages on a session (its inbox
    /// for the app is full, or no client holds the app there): messages of
    /// `delivery.app` from `delivery.from` on were not delivered. Queued
    /// ones wait and go again when it has room; plain sends are not kept
    /// (issue 23; live only, never replayed).
    case undelivered = "undelivered"
    /// An app's state with a peer changed (issue 23, MPC's session state):
    /// `app` holds the app, its `state` and, for `notConnected`, `reason`.
    /// Only to the app's clients; live only.
    case appStateChanged = "appStateChanged"
    /// A peer's session state changed; `reason` says why.
    case stateChanged = "stateChanged"
    /// Our invitation never reached the peer: no address answered, or the
    /// handshake failed (`reason`). The peer's state did not change.
    case inviteFailed = "inviteFailed"
    /// A peer invites us; a client must `accept` or `decline`.
    case invitation = "invitation"
    /// A message arrived from a connected peer (live only, never replayed).
    case message = "message"
    /// A message no client took was stored in the inbox (no data; for watchers).
    case stored = "stored"
    /// A dialled peer proved a key that does not match its advertised id.
    case identityMismatch = "identityMismatch"
    /// A peer asks to pair; `pairing.code` is what its user sees.
    case pairingRequest = "pairingRequest"
    /// Our pairing request reached the code: show `pairing.code` to the user.
    case pairingCode = "pairingCode"
    /// The pairing completed; the peer is trusted.
    case paired = "paired"
    /// A pairing failed; `pairingFailure` says why.
    case pairingFailed = "pairingFailed"
    /// Trust in the peer was removed (here or by the peer).
    case unpaired = "unpaired"
    /// A peer offers files; a client may `acceptTransfer` or
    /// `declineTransfer` (`transfer`, with every file).
    case transferOffered = "transferOffered"
    /// A transfer moved on (at most 10 a second per transfer; live only).
    case transferProgress = "transferProgress"
    /// Every accepted file of a transfer is in place.
    case transferCompleted = "transferCompleted"
    /// A transfer ended without completing: declined, cancelled, timed
    /// out or failed (`transfer.reason`, `transfer.detail`).
    case transferFailed = "transferFailed"
    /// The last event before the daemon drops the subscription.
    case error = "error"
    /// A `channel` asked with `opened` is open (since 0.3.0): written on
    /// that request's connection alone, with `peer`; never journaled.
    case channelOpened = "channelOpened"

    /// Events sent only to those connected when they happen, never kept for
    /// `since` replay: messages (taken, and possibly megabytes), inbox
    /// notices, acknowledgements, and a subscription's final error.
    public var isLiveOnly: Bool {
        switch self {
        case .message, .stored, .delivered, .error, .transferProgress: return true
        default: return false
        }
    }
}
