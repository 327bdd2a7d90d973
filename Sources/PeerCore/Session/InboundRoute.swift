/// Where a message that arrived on an authenticated session goes: the
/// session's own dispatch, decided without I/O (docs/protocol.md §5, §6).
///
/// Acknowledgements go to the sender's ledger, pairing messages to the
/// pairing that runs (or start one), and everything else to the
/// ``SessionLifecycle``. A message that the session's phase does not allow
/// is a protocol violation, which ends the session.
package enum InboundRoute: Sendable, Equatable {
    /// The peer has received the first `count` messages sent on the session.
    case acknowledged(UInt64)
    /// The peer removed its trust in us.
    case unpaired
    /// The peer asks to pair.
    case pairingRequested
    /// A step for the session's pairing (running, or finished: it answers
    /// late steps itself).
    case pairingStep(WireMessage)
    /// A pairing step with no pairing running: answered with a reject.
    case rejectStrayPairing
    /// A reject with no pairing running: nothing to do.
    case ignore
    /// For the lifecycle (invitations, data, pings, closes).
    case lifecycle(WireMessage)
    /// For the data plane: transfers and streams (docs/protocol.md §8).
    case bulk(BulkMessage)
    /// An app's list, binding or flow message (not its data, which the
    /// lifecycle assembles), for the session's owner.
    case app(AppMessage)
    /// A message of a feature that plugs into the session, for the
    /// feature that registered its type (which checks its own rules).
    case feature(type: UInt8, body: [UInt8])
    /// The next application message's place in the peer's durable queue
    /// (`queued`, feature `once`).
    case queued(QueueTag)
    /// Not allowed now: the session ends with these words.
    case violation(String)

    /// Routes `message`. `canSendData` and `canCarryPairing` are the
    /// lifecycle's; `sent` is how many messages this side has sent;
    /// `pairing` whether the session has a pairing, and whether it finished.
    package static func of(_ message: WireMessage, canSendData: Bool, canCarryPairing: Bool, sent: UInt64,
                          pairing: PairingPresence) -> InboundRoute {
        switch message {
        case .ack(let count):
            guard canSendData, count <= sent else {
                return .violation("an acknowledgement of \(count) messages, but \(sent) were sent")
            }
            return .acknowledged(count)
        case .pairRequest, .pairCommit, .pairNonce, .pairReveal, .pairConfirm, .pairReject, .unpair:
            guard canCarryPairing else { return .violation("a pairing message before the session was accepted") }
            switch (message, pairing) {
            case (.unpair, _): return .unpaired
            case (.pairRequest, .none), (.pairRequest, .finished): return .pairingRequested
            case (.pairReject, .none): return .ignore
            case (_, .none): return .rejectStrayPairing
            default: return .pairingStep(message)
            }
        case .app(.data):
            return .lifecycle(message)
        case .app(let app):
            guard canSendData else { return .violation("an app message outside an accepted session") }
            return .app(app)
        case .feature(let type, let body):
            return .feature(type: type, body: body)
        case .queued(let tag):
            guard canSendData else { return .violation("a queued tag outside an accepted session") }
            // §5: an epoch is never 0 and a queue's messages count from 1.
            guard tag.epoch != 0, tag.seq != 0 else { return .violation("a queued tag with epoch or seq 0") }
            return .queued(tag)
        case .bulk(let bulk):
            if let violation = bulkViolation(canSendData: canSendData) { return .violation(violation) }
            return .bulk(bulk)
        default:
            return .lifecycle(message)
        }
    }

    /// Why a transfer or stream message may not come now, or nil when it
    /// may: the rule for ``bulk(_:)``, which the receive path also applies
    /// to the `chunk` and `streamData` it reads in place (``BulkDataHead``).
    package static func bulkViolation(canSendData: Bool) -> String? {
        canSendData ? nil : "a transfer or stream message outside an accepted session"
    }
}
