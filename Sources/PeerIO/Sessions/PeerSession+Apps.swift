import PeerCore
import PeerProtocol

/// What a session does for apps (issue 23; docs/protocol.md §10): it
/// confirms this host's app list, binds app numbers, and carries the
/// per-app flow (``AppFlow``). Their data goes through ``PeerSession/send(_:app:)``.
extension PeerSession {
    /// The app this session was invited for, while the session carries
    /// apps alone: no default-app traffic goes until the default app joins
    /// it (protocol.md §10).
    package var admission: AppName? {
        carriesDefault ? nil : try? AppName(lifecycle.admission)
    }

    /// Whether default-app traffic (messages, files, streams) may use it.
    package var carriesDefault: Bool { lifecycle.defaultJoin.isJoined }

    /// Why a default-app flow may not open on this session (a plain `offer`
    /// or `streamOpen`): it was accepted for an app alone.
    var appOnlyViolation: String? {
        carriesDefault ? nil : "a default-app offer or streamOpen on a session accepted for app '\(lifecycle.admission)' alone"
    }

    /// Whether the peer announced feature `apps` (a 0.2.0 peer did not).
    package var carriesApps: Bool { remoteHello?.speaks(.apps) ?? false }

    /// Why a message of `app` cannot go on this session now, or nil when it
    /// can (the queue's room aside): the peer's release, or its `appBusy`.
    package func appRefusal(_ app: AppName) -> AppSendRefusal? {
        if app.isDefault { return nil }
        guard carriesApps else { return .unsupported(release: remoteHello?.release ?? PeerHello.silentRelease) }
        if let text = appFlow.heldBy(app) { return .busy(text) }
        return nil
    }

    /// Tells the peer this host's apps (`appList`); nothing to a peer
    /// without the feature, or before the session is accepted.
    package func sendAppList(_ names: [String]) {
        guard isConnected, carriesApps else { return }
        transmit(.app(.list(names)))
    }

    /// Sends one app invitation message (protocol.md §10); nothing to a
    /// peer without the feature, or before the session is accepted.
    package func sendApp(_ message: AppMessage) {
        guard isConnected, carriesApps else { return }
        transmit(.app(message))
    }

    /// `app` has room here again: if its messages were refused, the peer
    /// hears once that it may send them (`appReady`).
    package func appHasRoom(_ app: AppName) {
        guard isConnected, let number = appBindings.incomingNumber(for: app), appFlow.room(app) else { return }
        transmit(.app(.ready(number: number)))
    }

    /// The apps whose messages are refused on this session now.
    package var refusedApps: [AppName] { appFlow.refusedApps }

    /// An app message that is not data (the lifecycle assembles data).
    func received(app message: AppMessage) {
        switch message {
        case .list(let names):
            delegate?.session(self, confirmedApps: names)
        case .open(let number, let name):
            if let problem = appBindings.peerBound(number, to: name) { fail(problem.description) }
        case .busy(let number, let first, let text):
            guard let app = appBindings.outgoingApp(number) else { return fail("appBusy of number \(number), which this side never opened") }
            appFlow.peerBusy(app, text)
            delegate?.session(self, appBusy: app, from: first, text: text)
        case .ready(let number):
            guard let app = appBindings.outgoingApp(number) else { return fail("appReady of number \(number), which this side never opened") }
            guard appFlow.peerReady(app) else { return }
            transmit(.app(.retry(number: number)))
            delegate?.session(self, appReady: app)
        case .retry(let number):
            guard let app = appBindings.incomingApp(number), appFlow.peerRetried(app) else {
                return fail("appRetry of number \(number), which was not refused and made ready")
            }
        case .invite("", _, _), .accept(""), .decline("", _, _), .leave("", _, _):
            // The empty name is the default app joining (protocol.md §10).
            receivedJoin(message)
        case .invite, .accept, .decline, .leave:
            delegate?.session(self, app: message)
        case .flow(let number, let opening):
            guard let app = appBindings.incomingApp(number) else { return fail("appFlow under number \(number), which the peer never opened") }
            delegate?.session(self, bulk: opening, app: app)
        case .data:
            break
        }
    }
}
