import PeerCore
import PeerProtocol

/// What a session does with application messages (PeerSession.swift holds
/// its state): sending them, handing arriving ones to the owner, and
/// acknowledging what a client or an inbox made safe, per app.
extension PeerSession {
    /// Sends one application message of `app` (the default app: plain
    /// `data`), fragmented. Returns its number on this session (1, 2, …;
    /// compare with acknowledgements), or nil, sending nothing, when the
    /// queue is too full (the caller retries later) or `app` cannot go now
    /// (``appRefusal(_:)`` says why, and ``carriesDefault`` for the
    /// default app; callers ask them first).
    /// `tag`, for a message of the durable queue, goes before it as a
    /// `queued` message when the peer speaks `once`, so the peer keeps it
    /// once however often it is sent.
    @discardableResult
    package func send(_ data: [UInt8], app: AppName = .none, tag: QueueTag? = nil) -> UInt64? {
        guard isConnected, transport.queuedBytes + data.count <= sendLimit else { return nil }
        let fragments: [WireMessage]
        if app.isDefault {
            // A session for an app alone takes none until the default app joins it.
            guard carriesDefault else { return nil }
            fragments = WireCodec.fragments(of: data)
        } else {
            guard carriesApps, appFlow.heldBy(app) == nil, let binding = appBindings.outgoingNumber(for: app) else { return nil }
            if binding.announce { transmit(.app(.open(number: binding.number, name: app.text))) }
            fragments = AppCodec.fragments(of: data, number: binding.number)
        }
        lifecycle.noteSent(now: clock.now())
        if let tag, remoteHello?.speaks(.once) == true { transmit(.queued(tag)) }
        for fragment in fragments { transmit(fragment) }
        return ledger.send()
    }

    /// The message answered ``DeliveryVerdict/pending`` was stored (nil) or
    /// could not be (`refusal`).
    package func stored(refusal: String?) {
        guard storing else { return }
        storing = false
        let app = storingApp
        storingApp = nil
        transport.releaseDelivery()
        guard !finished else { return }
        // An app's message its inbox could not keep holds back that app alone.
        if let app, let refusal { return refuse(app.app, number: app.number, refusal) }
        made(safe: refusal)
    }

    /// A message of `app` (the peer's `number`) cannot be taken: the peer
    /// hears it once (`appBusy`, naming this message's number), and the
    /// message still counts, so later messages of other apps are acknowledged.
    func refuse(_ app: AppName, number: UInt16, _ text: String) {
        if appFlow.refused(app) { transmit(.app(.busy(number: number, message: ledger.received + 1, text: text))) }
        made(safe: nil)
    }

    /// A message was made safe (counted, acknowledged in batches), or could
    /// not be: what came before is acknowledged, and the session ends as busy.
    func made(safe refusal: String?) {
        guard let refusal else {
            ledger.receive()
            return acknowledge(every: 64)
        }
        acknowledge(every: 1)
        perform(lifecycle.closeLocally(refusal, reason: .busy))
    }

    /// Asks the peer to acknowledge what it has now (a ping; see
    /// ``SessionLifecycle/askForAcknowledgement(now:)``): for a sender
    /// whose last messages wait only for that.
    package func askForAcknowledgement() {
        perform(lifecycle.askForAcknowledgement(now: clock.now()))
    }

    /// Acknowledges what arrived since the last acknowledgement.
    func acknowledge(every batch: UInt64) {
        guard isConnected, let count = ledger.acknowledgement(every: batch) else { return }
        transmit(.ack(count))
    }


    /// Hands a whole message of `app` (the peer's `number`) to the owner.
    /// Acknowledged only once a client or the inbox has it. When neither
    /// can, what came before is acknowledged and the session ends as busy
    /// (the sender keeps the rest), or, for an app, that app alone is
    /// refused. False when the session ends.
    func deliver(_ message: [UInt8], app: AppName, number: UInt16) -> Bool {
        // A tag names this message alone, whatever becomes of it.
        let tag = pendingTag
        pendingTag = nil
        // Refused already: the peer was told, and sends it again after `appRetry`.
        if !app.isDefault, !appFlow.takes(app) {
            made(safe: nil)
            return true
        }
        switch delegate?.session(self, delivered: message, app: app, tag: tag) ?? .refused("the session has no owner") {
        case .safe:
            made(safe: nil)
        case .pending:
            // Nothing more is handed over until it is stored.
            storing = true
            storingApp = app.isDefault ? nil : (app, number)
            transport.holdDelivery()
        case .appRefused(let text) where !app.isDefault:
            refuse(app, number: number, text)
        case .refused(let refusal), .appRefused(let refusal):
            made(safe: refusal)
            return false
        }
        return true
    }
}
