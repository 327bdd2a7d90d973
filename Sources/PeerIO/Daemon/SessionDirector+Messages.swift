import FoundationEssentials
import PeerCore
import PeerProtocol

/// What a session's application messages mean to the daemon: where an
/// arriving message goes (a channel, the taking clients, the inbox, or
/// nowhere: `busy`), a queued message kept exactly once (issue 42,
/// point 6), and each app's refusals and room over the session.
extension SessionDirector {
    /// A message of `app` arrived: that app's clients taking messages get
    /// it, or its inbox keeps it; if neither can, the words for the
    /// session's `busy` close (the default app) or for the app's `appBusy`.
    /// A queued message with a `tag` from a paired peer is kept exactly
    /// once: a repeat is dropped (and acknowledged), and a new one goes
    /// to the inbox first, never straight to a channel or a taker.
    package func session(_ session: PeerSession, delivered message: [UInt8], app: AppName, tag: QueueTag?) -> DeliveryVerdict {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return .refused("the session has no proven peer") }
        let once = tag.flatMap { inboxes.keepsOnce(from: peerID) ? $0 : nil }
        // A message channel for the peer and app takes it ahead of the inbox.
        if once == nil, table.isCurrent(session), features.deliver(message, app: app, from: session) { return .safe }
        guard apps.keeps(app) else {
            return .appRefused("'\(discovery.name)' has no client of app '\(app.text)', and does not declare it")
        }
        guard app.isDefault || appSessions.state(peer, app) == .connected else {
            return .appRefused("app '\(app.text)' on '\(discovery.name)' is not connected with this peer: invite it first")
        }
        let outcome = inboxes.arrived(message, from: peerID, app: app, now: clock.now(), tag: once) { [weak self, weak session] refusal in
            guard let self, let session else { return }
            session.stored(refusal: refusal.map { app.isDefault ? self.busy(peer, peerID: peerID, $0) : self.appBusy(app, $0) })
        }
        switch outcome {
        case .accepted:
            // A subscriber is behind: hold the flow back (this session stops
            // reading) until it catches up, rather than queue more or drop it.
            hold.delivered(by: session, now: clock.now())
            return .safe
        case .repeated:
            return .safe
        case .storing:
            return .pending
        case .refused(let why):
            return app.isDefault ? .refused(busy(peer, peerID: peerID, why)) : .appRefused(appBusy(app, why))
        }
    }

    /// The words of an `appBusy`: this host, the app, and why.
    private func appBusy(_ app: AppName, _ why: String) -> String {
        "'\(discovery.name)', app '\(app.text)': \(why)"
    }

    /// The peer's daemon confirmed its apps.
    package func session(_ session: PeerSession, confirmedApps names: [String]) {
        guard let peer = session.peerUUID, table.isCurrent(session) else { return }
        directory.confirm(apps: names, for: peer)
    }

    /// The peer refused `app`'s messages from `first` on: its queue keeps
    /// them, its channel is reset, and clients hear `undelivered`.
    package func session(_ session: PeerSession, appBusy app: AppName, from first: UInt64, text: String) {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID, table.isCurrent(session) else { return }
        logger.info("'\(directory.row(peer)?.name ?? peerID)' refuses app '\(app.text)' from message \(first) of session \(session.number): \(text)")
        queued.appBusy(app, peer: peer, peerID: peerID, from: first, text: text)
        features.appBusy(app, on: session, text: text)
        emit(ControlEvent(seq: 0, type: .undelivered, time: clock.now(), peer: directory.row(peer),
                          delivery: DeliveryInfo(session: session.number, refusedFrom: first, app: app.text, text: text)))
    }

    /// An app's invitation, answer or end: the app's state with the peer.
    package func session(_ session: PeerSession, app message: AppMessage) {
        guard session.peerUUID != nil, table.isCurrent(session) else { return }
        appSessions.received(message, on: session)
    }

    /// The peer has room for `app` again: what waits for it goes.
    package func session(_ session: PeerSession, appReady app: AppName) {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID, table.isCurrent(session) else { return }
        queued.appReady(app, peerID: peerID)
        drainQueue(for: peer)
        bulk.sessionCanSendBulk(session)
    }

    /// The words for a `busy` close: the peer is not dialled again for
    /// 30 s, or until a client takes messages here (a disk that was full
    /// may have room again by itself).
    private func busy(_ peer: UUID, peerID: String, _ why: String) -> String {
        logger.warning("closing the session with '\(directory.row(peer)?.name ?? peerID)' as busy: \(why)")
        reconnect.refusedAsBusy(peer, now: clock.now())
        return "'\(discovery.name)': \(why)"
    }
}
