import FoundationEssentials
import PeerCore
import PeerProtocol

/// Each app's state with each peer (issue 23, point 3): MultipeerConnectivity's
/// `MCSession` per app, on top of the hosts' one session. Every decision
/// is an ``AppPeerLifecycle``'s; this shell keeps one per peer and app,
/// sends what they say on the peer's session (protocol.md §10), asks the
/// app's clients about invitations, and tells them of each change
/// (`appStateChanged`, to the app's clients alone).
///
/// An app's first invitation to a peer with no session asks for a session
/// on behalf of that app alone (the caller dials; protocol.md §10): the
/// peer's host decides it by the app's rules, and accepting it connects
/// the app and admits no default-app traffic. Such a session closes once
/// no app uses it; one the default app was admitted to stays while it does.
@MainActor
final class AppSessions {
    private var states: [QueueKey: AppPeerLifecycle] = [:]
    /// Invitations waiting for a client of their app, and whose they are.
    private var book = InvitationBook()
    private var asking: [String: QueueKey] = [:]
    /// Invitations to send once the peer's session is up.
    private var pending: [QueueKey: (context: [UInt8], timeout: TimeInterval)] = [:]
    /// Apps whose invitation is the session's own (the peer asked for it
    /// on their behalf): answered by accepting or declining the session.
    private var hostLevel: Set<QueueKey> = []
    private let table: SessionTable
    private let directory: PeerDirectory
    private let apps: AppDesk
    /// The daemon's one path for events (given at init).
    private let events: EventOutlet
    /// Whether an app accepts a peer's invitation without asking
    /// (`--app-auto-accept`; given at init).
    private let accepts: @MainActor (AppName, String) -> Bool
    /// Whether a peer's app invitation may reach the clients now: the
    /// invitation rate (peer UUID, peer id; given at init).
    private let rateAllows: @MainActor (UUID, String) -> Bool
    /// App invitations declined or dropped past the rate (logged once per 100).
    private var overRate = 0
    private let logger: Logger
    private let clock: DaemonClock

    /// The apps' states over the sessions of `table`; `events` numbers and
    /// sends its events, `accepts` says whether an app auto-accepts a peer id,
    /// `rateAllows` whether a peer's invitation may be asked now.
    init(table: SessionTable, directory: PeerDirectory, apps: AppDesk, events: EventOutlet, accepts: @escaping @MainActor (AppName, String) -> Bool,
         rateAllows: @escaping @MainActor (UUID, String) -> Bool, logger: Logger, clock: DaemonClock) {
        self.rateAllows = rateAllows
        self.table = table
        self.directory = directory
        self.apps = apps
        self.events = events
        self.accepts = accepts
        self.logger = logger
        self.clock = clock
    }

    /// `app`'s state with `peer` (the default app's is the session's).
    func state(_ peer: UUID, _ app: AppName) -> ConnectionState {
        states[QueueKey(peer: peer, app: app)]?.state ?? .notConnected
    }

    /// The apps connected with `peer` now.
    func connectedApps(_ peer: UUID) -> Set<AppName> {
        Set(states.filter { $0.key.peer == peer && $0.value.state == .connected }.map(\.key.app))
    }

    /// The app invitations waiting for a client of `app`.
    func waiting(_ app: AppName) -> [InvitationInfo] { book.all.filter { $0.app == app.text } }

    // MARK: Clients

    /// A client of `app` invites `peer`'s. With no session, `dial` opens
    /// one on the app's behalf alone (protocol.md §10), whose accept
    /// connects the app; over a session that exists, `appInvite` goes.
    func invite(_ peer: PeerSnapshot, app: AppName, context: [UInt8], timeout: TimeInterval,
                dial: () -> Result<InviteResult, ControlError>) -> Result<AppStateInfo, ControlError> {
        let key = QueueKey(peer: peer.id, app: app)
        guard let session = table[peer.id], session.isConnected else {
            if case .failure(let error) = dial() { return .failure(error) }
            pending[key] = (context, timeout)
            return .success(AppStateInfo(app: app.text, state: .connecting))
        }
        if case .unsupported(let release) = session.appRefusal(app) {
            return .failure(.unsupported(.apps, peer: peer.name, release: release))
        }
        var lifecycle = states[key] ?? AppPeerLifecycle()
        let actions = lifecycle.invite(context: context, timeout: timeout, now: clock.now())
        states[key] = lifecycle
        perform(actions ?? [], key: key, on: session)
        return .success(AppStateInfo(app: app.text, state: lifecycle.state))
    }

    /// Messages of `app` wait in its queue for `peer`: the app invites the
    /// peer's on their behalf (no context), unless it is connected or its
    /// invitation is out. A host that keeps no client there declines it.
    func inviteForQueue(_ peer: UUID, app: AppName) {
        let key = QueueKey(peer: peer, app: app)
        guard apps.keeps(app), pending[key] == nil, state(peer, app) == .notConnected,
              let session = table[peer], session.isConnected, session.appRefusal(app) == nil else { return }
        var lifecycle = AppPeerLifecycle()
        guard let actions = lifecycle.invite(context: [], timeout: 30, now: clock.now()) else { return }
        states[key] = lifecycle
        logger.info("app '\(app.text)' invites '\(directory.row(peer)?.name ?? peer.uuidString)' for its queued messages")
        perform(actions, key: key, on: session)
    }

    /// A client answers the app invitation whose id starts with `prefix`;
    /// it must hold the invitation's app.
    func answer(_ prefix: String, accept: Bool, client: ControlConnection) -> Result<InvitationInfo, ControlError> {
        let found = book.match(prefix)
        guard case .success(let info) = found, let key = asking[info.id] else { return found }
        guard apps.holds(key.app, client) else {
            return .failure(ControlError(.permissionDenied, "invitation \(info.id.prefix(8)) is for app '\(key.app.text)': only a connection that registered it may answer"))
        }
        forget(info.id)
        var lifecycle = states[key] ?? AppPeerLifecycle()
        let actions = lifecycle.answered(accept: accept)
        states[key] = lifecycle
        if let session = table[key.peer] { perform(actions, key: key, on: session) }
        return .success(info)
    }

    /// A client of `app` ends its state with `peer` (`disconnect` with an app).
    func leave(_ peer: PeerSnapshot, app: AppName) -> Result<AppStateInfo, ControlError> {
        let key = QueueKey(peer: peer.id, app: app)
        pending[key] = nil
        guard var lifecycle = states[key], lifecycle.state != .notConnected else {
            return .failure(ControlError(.notConnected, "app '\(app.text)' is not connected with '\(peer.name)'"))
        }
        let actions = lifecycle.leave()
        states[key] = lifecycle
        if let session = table[peer.id] { perform(actions, key: key, on: session) }
        return .success(AppStateInfo(app: app.text, state: .notConnected, reason: .left))
    }

    /// Apps this host no longer keeps (their last client closed, or they
    /// were removed) leave every peer they were with.
    func prune() {
        for (key, var lifecycle) in states where !apps.keeps(key.app) && lifecycle.state != .notConnected {
            let actions = lifecycle.leave()
            states[key] = lifecycle
            if let session = table[key.peer] { perform(actions, key: key, on: session) }
        }
        for key in pending.keys where !apps.keeps(key.app) { pending[key] = nil }
    }

    // MARK: Sessions

    /// The peer asks for a session on behalf of its `app` alone: the app's
    /// rules decide it, as they decide an app's invitation on a session,
    /// and the answer is the session's own accept or decline.
    func hostInvited(_ session: PeerSession, peer: UUID, app: AppName, context: [UInt8], timeoutSeconds: Int) {
        guard let peerID = session.remotePeerID else { return }
        let key = QueueKey(peer: peer, app: app)
        var lifecycle = AppPeerLifecycle()
        let actions = lifecycle.peerInvited(context: context, timeout: TimeInterval(timeoutSeconds), clients: apps.hasClients(app),
                                            autoAccept: apps.keeps(app) && accepts(app, peerID), now: clock.now())
        states[key] = lifecycle
        hostLevel.insert(key)
        perform(actions, key: key, on: session)
    }

    /// Whether a client of an app is being asked about `session` itself.
    func isAsking(_ session: PeerSession) -> Bool {
        guard let peer = session.peerUUID else { return false }
        return hostLevel.contains { $0.peer == peer }
    }

    /// The peer's session is up: the app invitations waiting for it go; the
    /// app the session itself was asked for is connected by its accept.
    func sessionUp(_ session: PeerSession) {
        guard let peer = session.peerUUID else { return }
        if let app = session.admission, pending.removeValue(forKey: QueueKey(peer: peer, app: app)) != nil {
            let key = QueueKey(peer: peer, app: app)
            var lifecycle = AppPeerLifecycle()
            _ = lifecycle.invite(context: [], timeout: 300, now: clock.now())
            let actions = lifecycle.peerAccepted()
            states[key] = lifecycle
            perform(actions, key: key, on: session)
        }
        for (key, invitation) in pending where key.peer == peer {
            pending[key] = nil
            var lifecycle = states[key] ?? AppPeerLifecycle()
            guard session.carriesApps, let actions = lifecycle.invite(context: invitation.context, timeout: invitation.timeout, now: clock.now()) else {
                announce(key, AppStateInfo(app: key.app.text, state: .notConnected, reason: .sessionEnded,
                                           detail: "'\(directory.row(peer)?.name ?? "the peer")' runs peerd \(session.remoteHello?.release ?? "0.1.0"), which cannot carry app traffic"))
                continue
            }
            states[key] = lifecycle
            perform(actions, key: key, on: session)
        }
    }

    /// The peer's session ended (`reason`, `text`): every app's state with it ends.
    func sessionDown(_ peer: UUID, reason: CloseReason, text: String) {
        for (id, key) in asking where key.peer == peer { forget(id) }
        hostLevel = hostLevel.filter { $0.peer != peer }
        for key in pending.keys where key.peer == peer {
            pending[key] = nil
            // An invitation that asked for the session itself ends as the session did.
            let ended: AppEndReason = switch reason {
            case .declined: .declined
            case .timedOut: .timedOut
            default: .sessionEnded
            }
            announce(key, AppStateInfo(app: key.app.text, state: .notConnected, reason: ended, detail: text))
        }
        for (key, var lifecycle) in states where key.peer == peer {
            let actions = lifecycle.ended(.sessionEnded)
            states[key] = nil
            perform(actions, key: key, on: nil)
        }
    }

    /// An app message of the peer's (its invitations and their answers).
    func received(_ message: AppMessage, on session: PeerSession) {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return }
        let name: String
        switch message {
        case .invite(let text, _, _), .accept(let text), .decline(let text, _, _), .leave(let text, _, _): name = text
        default: return
        }
        guard let app = try? AppName(name) else { return session.fail("an app invitation message for '\(name)', which is no app name") }
        let key = QueueKey(peer: peer, app: app)
        var lifecycle = states[key] ?? AppPeerLifecycle()
        let actions: [AppPeerAction]
        var detail: String?
        switch message {
        case .invite(_, let timeout, let context):
            let kept = apps.keeps(app)
            var allowed = true
            actions = lifecycle.peerInvited(context: context, timeout: max(1, min(300, TimeInterval(timeout) / 1000)),
                                            clients: apps.hasClients(app), autoAccept: kept && accepts(app, peerID),
                                            rateAllows: { allowed = rateAllows(peer, peerID); return allowed }, now: clock.now())
            if !allowed {
                if overRate % 100 == 0 {
                    logger.warning("app invitations for '\(name)' from '\(directory.row(peer)?.name ?? peerID)' past the invitation rate: a first one is declined, a repeat dropped (\(overRate + 1) so far)")
                }
                overRate += 1
            }
        case .accept:
            actions = lifecycle.peerAccepted()
        case .decline(_, let reason, let text), .leave(_, let reason, let text):
            detail = text
            for (id, asked) in asking where asked == key { forget(id) }
            actions = lifecycle.ended(reason)
        default:
            return
        }
        states[key] = lifecycle
        perform(actions, key: key, on: session, detail: detail)
    }

    /// The clock: invitations past their time end.
    func tick(now: Date) {
        for (key, var lifecycle) in states {
            let actions = lifecycle.tick(now: now)
            guard !actions.isEmpty else { continue }
            states[key] = lifecycle
            for (id, asked) in asking where asked == key { forget(id) }
            perform(actions, key: key, on: table[key.peer])
        }
    }

    // MARK: Performing

    private func perform(_ actions: [AppPeerAction], key: QueueKey, on session: PeerSession?, detail: String? = nil) {
        let name = key.app.text
        // The session's own invitation is answered by the session.
        let bySession = hostLevel.contains(key) && session?.phase == .awaitingDecision
        if bySession, let session {
            for action in actions {
                switch action {
                case .sendAccept:
                    hostLevel.remove(key)
                    session.decide(accept: true)
                case .sendDecline(let reason):
                    hostLevel.remove(key)
                    session.declineAutomatically(words(reason, app: key.app))
                default: break
                }
            }
        }
        for action in actions {
            switch action {
            case .sendAccept where bySession, .sendDecline where bySession:
                break
            case .sendInvite(let context, let timeout):
                session?.sendApp(.invite(name: name, timeoutMilliseconds: timeout, context: context))
            case .sendAccept:
                session?.sendApp(.accept(name: name))
            case .sendDecline(let reason):
                session?.sendApp(.decline(name: name, reason: reason, text: words(reason, app: key.app)))
            case .sendLeave(let reason):
                session?.sendApp(.leave(name: name, reason: reason, text: words(reason, app: key.app)))
            case .askClients(let context):
                ask(key, context: context, session: session)
            case .updateAsk(let context):
                ask(key, context: context, session: session, replacing: asking.first { $0.value == key }?.key)
            case .declineOverRate:
                session?.sendApp(.decline(name: name, reason: .declined, text: "too many invitations; try again later"))
            case .stateChanged(let state, let reason):
                logger.info("app '\(name)' with '\(directory.row(key.peer)?.name ?? key.peer.uuidString)': \(state.rawValue)\(reason.map { " (\($0.rawValue))" } ?? "")")
                announce(key, AppStateInfo(app: name, state: state, reason: reason, detail: detail))
                if state == .notConnected {
                    states[key] = nil
                    closeIfUnused(key.peer, session: session)
                }
            }
        }
    }

    /// A session accepted for an app alone closes once no app uses it.
    private func closeIfUnused(_ peer: UUID, session: PeerSession?) {
        guard let session, session.isConnected, !session.carriesDefault, connectedApps(peer).isEmpty,
              !pending.keys.contains(where: { $0.peer == peer }) else { return }
        logger.info("the session with '\(directory.row(peer)?.name ?? peer.uuidString)' was for apps alone, and none uses it now: closing it")
        session.close("no app uses the session any more")
    }

    /// The words that go with a decline or leave from this host.
    private func words(_ reason: AppEndReason, app: AppName) -> String {
        switch reason {
        case .declined: "a client of app '\(app.text)' declined"
        case .noClient: "no client holds app '\(app.text)' here"
        case .timedOut: "nobody answered in time"
        case .left: "app '\(app.text)' left"
        case .sessionEnded: "the session ended"
        }
    }

    /// Asks the app's clients about the peer's invitation; `replacing`, the
    /// id of the one it replaces, which the clients see again with the new
    /// context and deadline (an `invitation` event under the same id).
    private func ask(_ key: QueueKey, context: [UInt8], session: PeerSession?, replacing: String? = nil) {
        let row = directory.row(key.peer)
        let id = replacing ?? UUID().uuidString.lowercased()
        if replacing != nil { book.remove(id) }
        let expires: Date
        if case .invited(let deadline) = states[key]?.phase { expires = deadline } else { expires = clock.now().addingTimeInterval(30) }
        let info = InvitationInfo(id: id, peer: key.peer, name: row?.name ?? "", peerId: session?.remotePeerID ?? row?.peerId ?? "",
                                  context: String(decoding: context, as: UTF8.self), expires: expires, app: key.app.text,
                                  contextData: Data(context).base64EncodedString())
        book.add(info)
        asking[id] = key
        logger.info("app invitation \(id) for '\(key.app.text)' from '\(info.name)'")
        events.emit(ControlEvent(seq: 0, type: .invitation, time: clock.now(), peer: row, invitation: info)) { [apps] in
            apps.holds(key.app, $0)
        }
    }

    private func announce(_ key: QueueKey, _ info: AppStateInfo) {
        events.emit(ControlEvent(seq: 0, type: .appStateChanged, time: clock.now(), peer: directory.row(key.peer), app: info)) { [apps] in
            apps.holds(key.app, $0)
        }
    }

    private func forget(_ id: String) {
        asking[id] = nil
        book.remove(id)
    }
}
