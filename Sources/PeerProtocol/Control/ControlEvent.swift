import FoundationEssentials

/// One event on a subscription, numbered by the daemon's journal.
public struct ControlEvent: Codable, Sendable, Equatable {
    /// Monotonically increasing across the daemon's lifetime, starting at 1.
    /// The final `error` event of a dropped subscriber carries 0.
    public var seq: UInt64
    /// What happened.
    public var type: EventKind
    /// When the daemon recorded it.
    public var time: Date
    /// The peer row after the change (peer events).
    public var peer: PeerSnapshot?
    /// Why the subscription ends (`error` events).
    public var error: ControlError?
    /// Why the state changed (`stateChanged`).
    public var reason: CloseReason?
    /// The invitation (`invitation`).
    public var invitation: InvitationInfo?
    /// The message (`message`).
    public var message: MessageInfo?
    /// The mismatch (`identityMismatch`).
    public var mismatch: IdentityMismatchInfo?
    /// The pairing (pairing events).
    public var pairing: PairingInfo?
    /// Why a pairing failed (`pairingFailed`).
    public var pairingFailure: PairingFailure?
    /// What the peer's daemon acknowledged (`delivered`).
    public var delivery: DeliveryInfo?
    /// Words with `reason` (`stateChanged` to `notConnected`, `inviteFailed`):
    /// the close text, such as the limit that refused the session.
    public var detail: String?
    /// The message stored in the inbox (`stored`): no data.
    public var stored: InboxMessage?
    /// The transfer (transfer events).
    public var transfer: TransferInfo?
    /// `appStateChanged`: the app's state with `peer` (issue 23).
    public var app: AppStateInfo?

    /// Creates an event.
    public init(seq: UInt64, type: EventKind, time: Date, peer: PeerSnapshot? = nil, error: ControlError? = nil,
                reason: CloseReason? = nil, invitation: InvitationInfo? = nil, message: MessageInfo? = nil,
                mismatch: IdentityMismatchInfo? = nil, pairing: PairingInfo? = nil, pairingFailure: PairingFailure? = nil,
                delivery: DeliveryInfo? = nil, detail: String? = nil, stored: InboxMessage? = nil, transfer: TransferInfo? = nil,
                app: AppStateInfo? = nil) {
        self.app = app
        self.stored = stored
        self.transfer = transfer
        self.delivery = delivery
        self.detail = detail
        self.pairing = pairing
        self.pairingFailure = pairingFailure
        self.seq = seq
        self.type = type
        self.time = time
        self.peer = peer
        self.error = error
        self.reason = reason
        self.invitation = invitation
        self.message = message
        self.mismatch = mismatch
    }
}
