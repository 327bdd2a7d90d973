import FoundationEssentials
import PeerProtocol

/// One event of the daemon's, as a case with its payload
/// (docs/control-protocol.md, "Events"): what each kind carries, and
/// nothing it does not, instead of the wire's one record of optional
/// fields (``ControlEvent``). ``ControlEvent/update`` reads it;
/// ``PeerClient/updates(app:since:)`` yields them.
///
/// A kind this release of PeerKit does not know, or an event that lacks
/// what its kind must carry (a daemon that is newer, or wrong), is
/// ``other(_:)``: nothing is dropped, and nothing is guessed.
public enum PeerUpdate: Sendable, Equatable {
    /// A new peer, or a lost one back.
    case peerFound(PeerSnapshot)
    /// A peer's endpoints, name or TXT changed.
    case peerUpdated(PeerSnapshot)
    /// A peer's last endpoint went away (the row stays, `lost`).
    case peerLost(PeerSnapshot)
    /// A row evicted to make room; it leaves `peers`.
    case peerRemoved(PeerSnapshot)
    /// A peer's session state changed; for `notConnected`, why, and the
    /// words that came with it.
    case stateChanged(PeerSnapshot, reason: CloseReason?, detail: String?)
    /// An invitation of ours never reached the peer.
    case inviteFailed(PeerSnapshot?, reason: CloseReason?, detail: String?)
    /// A peer invites us (or our app): answer with accept or decline.
    case invitation(InvitationInfo)
    /// The peer's daemon acknowledged messages of a session.
    case delivered(PeerSnapshot?, DeliveryInfo)
    /// The peer's daemon refused an app's messages of a session.
    case undelivered(PeerSnapshot?, DeliveryInfo)
    /// An app's state with a peer changed.
    case appStateChanged(PeerSnapshot?, AppStateInfo)
    /// A message, taken: its bytes decoded.
    case message(PeerMessage)
    /// A message no client took was stored in the inbox.
    case stored(InboxMessage)
    /// A dialled endpoint proved another key.
    case identityMismatch(IdentityMismatchInfo)
    /// A peer asks to pair; its user reads the code there.
    case pairingRequest(PairingInfo)
    /// Our pairing reached the code the other host's user must type.
    case pairingCode(PairingInfo)
    /// Trust stored.
    case paired(PeerSnapshot?)
    /// A pairing failed, and why.
    case pairingFailed(PairingInfo?, PairingFailure)
    /// Trust removed, here or by the peer.
    case unpaired(PeerSnapshot?)
    /// A peer offers files; a client must decide.
    case transferOffered(TransferInfo)
    /// A transfer moved on.
    case transferProgress(TransferInfo)
    /// A transfer completed.
    case transferCompleted(TransferInfo)
    /// A transfer ended without completing (its state, reason and detail say how).
    case transferFailed(TransferInfo)
    /// The daemon's last event before it closes the subscription.
    case error(ControlError)
    /// A channel request's channel is open.
    case channelOpened(PeerSnapshot?)
    /// A kind this PeerKit does not know, or an event without what its
    /// kind must carry: the event as it came.
    case other(ControlEvent)

    /// The case of `event`, with what its kind carries.
    public init(_ event: ControlEvent) {
        let e = event
        switch e.type {
        case .peerFound: self = e.peer.map(Self.peerFound) ?? .other(e)
        case .peerUpdated: self = e.peer.map(Self.peerUpdated) ?? .other(e)
        case .peerLost: self = e.peer.map(Self.peerLost) ?? .other(e)
        case .peerRemoved: self = e.peer.map(Self.peerRemoved) ?? .other(e)
        case .stateChanged: self = e.peer.map { .stateChanged($0, reason: e.reason, detail: e.detail) } ?? .other(e)
        case .inviteFailed: self = .inviteFailed(e.peer, reason: e.reason, detail: e.detail)
        case .invitation: self = e.invitation.map(Self.invitation) ?? .other(e)
        case .delivered: self = e.delivery.map { .delivered(e.peer, $0) } ?? .other(e)
        case .undelivered: self = e.delivery.map { .undelivered(e.peer, $0) } ?? .other(e)
        case .appStateChanged: self = e.app.map { .appStateChanged(e.peer, $0) } ?? .other(e)
        case .message: self = e.message.flatMap(PeerMessage.init(info:)).map(Self.message) ?? .other(e)
        case .stored: self = e.stored.map(Self.stored) ?? .other(e)
        case .identityMismatch: self = e.mismatch.map(Self.identityMismatch) ?? .other(e)
        case .pairingRequest: self = e.pairing.map(Self.pairingRequest) ?? .other(e)
        case .pairingCode: self = e.pairing.map(Self.pairingCode) ?? .other(e)
        case .paired: self = .paired(e.peer)
        case .pairingFailed: self = e.pairingFailure.map { .pairingFailed(e.pairing, $0) } ?? .other(e)
        case .unpaired: self = .unpaired(e.peer)
        case .transferOffered: self = e.transfer.map(Self.transferOffered) ?? .other(e)
        case .transferProgress: self = e.transfer.map(Self.transferProgress) ?? .other(e)
        case .transferCompleted: self = e.transfer.map(Self.transferCompleted) ?? .other(e)
        case .transferFailed: self = e.transfer.map(Self.transferFailed) ?? .other(e)
        case .error: self = e.error.map(Self.error) ?? .other(e)
        case .channelOpened: self = .channelOpened(e.peer)
        }
    }
}

extension ControlEvent {
    /// The event as a case with its payload (``PeerUpdate``).
    public var update: PeerUpdate { PeerUpdate(self) }
}

extension PeerEvent {
    /// The event as a case with its payload (``PeerUpdate``); nil for a gap.
    public var update: PeerUpdate? {
        if case .event(let event) = self { event.update } else { nil }
    }
}
