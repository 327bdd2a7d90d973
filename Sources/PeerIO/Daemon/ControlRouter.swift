import FoundationEssentials
import PeerCore
import PeerProtocol

/// Answers control requests: checks each request's parameters, asks the
/// component that owns the answer, and returns a ``ControlReply`` for the
/// control layer to encode and send. It keeps no state of its own.
@MainActor
package final class ControlRouter: ControlRequestHandler {
    private let maxMessage: Int
    /// The peers' rows (internal: the data-plane requests find peers there too).
    let directory: PeerDirectory
    private let pairing: PairingCoordinator
    private let trust: TrustDesk
    private let invitations: InvitationDesk
    private let queued: QueuedDelivery
    private let inboxes: InboxBook
    private weak var sessions: (any SessionOperations)?
    /// Files (internal for `ControlRouter+DataPlane.swift`, as the next three).
    let transfers: TransferDesk
    /// Streams.
    let streams: StreamDesk
    /// The features that plug in: each answers its own methods.
    private let features: SessionFeatures
    /// This host's apps: which a connection holds.
    let apps: AppDesk
    /// Each app's state with each peer.
    let appSessions: AppSessions
    /// The journal's outlet: the events held for replay.
    private let events: EventOutlet
    /// The flow held back for slow subscribers, told when one drains.
    private let hold: SubscriberFlowHold
    /// The daemon's status (its composition root's, given at init).
    private let status: @MainActor () -> DaemonStatus

    /// A router over the daemon's components.
    init(maxMessage: Int, directory: PeerDirectory, pairing: PairingCoordinator, trust: TrustDesk, invitations: InvitationDesk,
         queued: QueuedDelivery, inboxes: InboxBook, sessions: any SessionOperations, transfers: TransferDesk, streams: StreamDesk,
         apps: AppDesk, appSessions: AppSessions, features: SessionFeatures, events: EventOutlet,
         hold: SubscriberFlowHold, status: @escaping @MainActor () -> DaemonStatus) {
        self.features = features
        self.events = events
        self.hold = hold
        self.status = status
        self.apps = apps
        self.appSessions = appSessions
        self.transfers = transfers
        self.streams = streams
        self.maxMessage = maxMessage
        self.directory = directory
        self.pairing = pairing
        self.trust = trust
        self.invitations = invitations
        self.queued = queued
        self.inboxes = inboxes
        self.sessions = sessions
    }

    /// The inbox forgets a message once its event is written whole.
    package func clientWrote(_ client: ControlConnection) { inboxes.written(client) }

    /// The inbox hands a gone client's messages to another taker,
    /// and the apps it alone held are withdrawn.
    package func clientClosed(_ client: ControlConnection) {
        inboxes.closed(client)
        apps.closed(client)
        appSessions.prune()
    }

    /// Sessions held back for a slow subscriber may go on.
    package func subscriberDrained() { hold.drained() }

    /// Answers one request.
    package func handle(_ method: ControlMethod, params: ControlParams, client: ControlConnection) -> ControlReply {
        guard let sessions else { return .error(ControlError(.shuttingDown, "peerd is stopping")) }
        // A feature that plugged in answers its own (``SessionFeatures``).
        if let feature = features.owner(of: method) { return feature.handle(method, params: params, client: client) }
        switch method {
        case .status:
            return .answer(.status, status())
        case .peers:
            guard let text = params.app, !text.isEmpty else { return .answer(.peers, PeersResult(peers: directory.all)) }
            // In an app, each row's state is the app's with that peer (MPC's session state).
            let app = try? AppName(text)
            return .answer(.peers, PeersResult(peers: directory.all.filter { $0.apps?[text] != nil }.map { row in
                var shown = row
                if let app { shown.state = appSessions.state(row.id, app) }
                return shown
            }))
        case .peer:
            return .from(.peer, ControlRequestRules.peerSelector(method, params)
                .flatMap { directory.select($0) }.map { features.describe($0) })
        case .send where params.peers != nil || params.all != nil:
            return apps.trafficApp(.send, params, client: client).map { groupSend(params, app: $0, sessions: sessions) }.reply
        case .invite, .disconnect, .send, .pair, .unpair:
            let app = [.send, .invite, .disconnect].contains(method) ? apps.trafficApp(method, params, client: client) : .success(.none)
            switch app.flatMap({ app in ControlRequestRules.peerSelector(method, params).flatMap({ directory.select($0) }).map { (app, $0) } }) {
            case .success((let app, let peer)): return sessionRequest(method, peer: peer, app: app, params: params, sessions: sessions)
            case .failure(let error): return .error(error)
            }
        case .add:
            let (endpoint, invitation) = (ControlRequestRules.addressEndpoint(params), ControlRequestRules.invitation(params))
            switch (endpoint, invitation) {
            case (.success(let endpoint), .success(let invitation)):
                return .later { answer in
                    sessions.add(endpoint, context: invitation.context, timeout: invitation.timeout, uid: client.credentials?.uid) { answer(.from(.add, $0)) }
                }
            case (.failure(let error), _), (_, .failure(let error)):
                return .error(error)
            }
        case .quickSave:
            switch ControlRequestRules.peerSelector(method, params).flatMap({ directory.select($0) }) {
            case .success(let peer):
                let trust = trust
                return .later { answer in
                    trust.setQuickSave(peer, folder: params.into, caller: client.credentials?.uid) { answer(.from(.quickSave, $0)) }
                }
            case .failure(let error):
                return .error(error)
            }
        case .pairAccept, .pairReject:
            let key: String
            switch ControlRequestRules.pairingKey(method, params) {
            case .success(let found): key = found
            case .failure(let error): return .error(error)
            }
            if method == .pairReject { return .from(.pairReject, pairing.reject(key)) }
            let pairing = pairing
            return .later { answer in pairing.accept(key, code: params.code) { answer(.from(.pairAccept, $0.map(PeerResult.init))) } }
        case .queue:
            let (queued, trust) = (queued, trust)
            return .later { answer in
                queued.list(record: { peerID in trust.record(peerID: peerID).map { ($0.uuid, $0.name) } },
                            then: { answer(.answer(.queue, QueueResult(queues: $0))) })
            }
        case .pairings:
            return .answer(.pairings, PairingsResult(pairings: pairing.inProgress))
        case .paired:
            return .answer(.paired, TrustListResult(peers: trust.records.map(\.shown)))
        case .invitations:
            switch apps.trafficApp(.invitations, params, client: client) {
            case .success(let app) where !app.isDefault: return .answer(.invitations, InvitationsResult(invitations: appSessions.waiting(app)))
            case .success: return .answer(.invitations, InvitationsResult(invitations: invitations.waiting))
            case .failure(let error): return .error(error)
            }
        case .accept, .decline:
            guard let key = params.invitation, !key.isEmpty else {
                return .error(ControlError(.invalidParams, "'\(method.rawValue)' needs params.invitation"))
            }
            // The default app's invitations first, then the apps'.
            let answered = invitations.answer(key, accept: method == .accept)
            if case .failure(let error) = answered, error.code == .notFound {
                return .from(method == .accept ? .accept : .decline, appSessions.answer(key, accept: method == .accept, client: client))
            }
            return .from(method == .accept ? .accept : .decline, answered)
        case .subscribe:
            // One subscription a connection: a second would replay the
            // events again and take messages twice (issue 42, point 5).
            if client.isSubscriber {
                return .error(ControlError(.invalidParams, "this connection is subscribed already; open another connection for another subscription"))
            }
            return apps.trafficApp(.subscribe, params, client: client).map { app in
                // In an app, only events about peers that run it (and the app's own).
                client.eventFilter = app.isDefault ? nil : AppEventFilter(app: app.text)
                return subscribe(params, app: app)
            }.reply
        case .sendFile, .acceptTransfer, .declineTransfer, .cancelTransfer, .transfers, .pipe:
            return dataPlaneRequest(method, params: params, client: client)
        case .register:
            return .from(.register, apps.register(params, client: client))
        case .appAdd:
            return .from(.appAdd, apps.declare(params, client: client))
        case .appRemove:
            let removed = apps.remove(params, client: client)
            appSessions.prune()
            return .from(.appRemove, removed)
        case .apps:
            return .answer(.apps, apps.rows)
        case .inbox:
            return .from(.inbox, apps.trafficApp(.inbox, params, client: client).flatMap { app in
                senderID(params.peer).map { inboxes.inbox(app).list(from: $0, max: min(params.max ?? 1000, 10_000)) }
            })
        case .take:
            switch apps.trafficApp(.take, params, client: client).flatMap({ app in senderID(params.peer).map { (app, $0) } }) {
            case .success((let app, let from)):
                let inbox = inboxes.inbox(app)
                return .later { answer in
                    inbox.take(from: from, max: min(params.max ?? 100, 10_000)) { outcome in
                        switch outcome {
                        case .failure(let error):
                            answer(.error(error))
                        case .success(let taken):
                            // A client gone meanwhile gets no answer: the messages wait still.
                            guard !client.isClosing else { return inbox.unclaimed(taken.ids) }
                            answer(.answer(.take, taken.result) { connection in inbox.answered(connection, ids: taken.ids) })
                        }
                    }
                }
            case .failure(let error):
                return .error(error)
            }
        default:
            // The features' methods were answered above; a method no
            // component answers is a programming error the client hears of.
            return .error(ControlError(.unknownMethod, "no component of this peerd answers '\(method.rawValue)'"))
        }
    }


    private func subscribe(_ params: ControlParams, app: AppName) -> ControlReply {
        let last = events.lastSeq
        let held = events.events(after: params.since ?? last)
        let result = SubscribeResult(seq: last, replayed: held.events.count, truncated: held.truncated, run: events.run)
        guard params.take == true else { return .subscribed(result, replay: held.events, then: nil) }
        switch senderID(params.peer) {
        case .success(let from):
            let inbox = inboxes.inbox(app)
            return .subscribed(result, replay: held.events) { connection in inbox.addTaker(connection, from: from, count: params.count) }
        case .failure(let error):
            return .error(error)
        }
    }

    private func sessionRequest(_ method: ControlMethod, peer: PeerSnapshot, app: AppName, params: ControlParams,
                                sessions: any SessionOperations) -> ControlReply {
        switch method {
        case .invite:
            switch ControlRequestRules.invitation(params) {
            case .success(let invitation) where !app.isDefault:
                // An app's invitation; with no session, one is asked for on its behalf.
                let opened = appSessions.invite(peer, app: app, context: invitation.context, timeout: invitation.timeout) {
                    sessions.invite(peer, context: invitation.context, timeout: invitation.timeout, app: app)
                }
                return .from(.invite, opened.map { InviteResult(peer: directory.row(peer.id) ?? peer, existing: true, app: $0) })
            case .success(let invitation): return .from(.invite, sessions.invite(peer, context: invitation.context, timeout: invitation.timeout, app: .none))
            case .failure(let error): return .error(error)
            }
        case .disconnect where !app.isDefault:
            return .from(.disconnectApp, appSessions.leave(peer, app: app).map { InviteResult(peer: directory.row(peer.id) ?? peer, existing: true, app: $0) })
        case .disconnect:
            return .from(.disconnect, sessions.disconnect(peer))
        case .pair:
            return .from(.pair, sessions.pair(with: peer).map(PeerResult.init))
        case .unpair:
            return .later { answer in sessions.unpair(peer) { answer(.from(.unpair, $0.map(PeerResult.init))) } }
        default:
            switch ControlRequestRules.message(params, maxMessage: maxMessage) {
            case .success(let data):
                // A plain send is answered at once (no deferred reply, which
                // would pause reading the client's next request).
                switch sendPath(peer, app: app, queue: params.queue) {
                case .queue(let peerID):
                    return .later { [self] answer in enqueue(data, for: peerID, app: app, peer: peer, sessions: sessions) { answer(.from(.send, $0)) } }
                case .session: return .from(.send, sessions.send(data, to: peer, app: app))
                case .refused(let error): return .error(error)
                }
            case .failure(let error):
                return .error(error)
            }
        }
    }

    /// Where a `send` of `app` to `peer` goes
    /// (``ControlRequestRules/sendPath(queue:peer:paired:connected:)``): an
    /// app's message is never queued for a peer whose release has no apps.
    private func sendPath(_ peer: PeerSnapshot, app: AppName, queue: Bool?) -> ControlRequestRules.SendPath {
        if !app.isDefault, queue == true, let release = peer.release, let features = peer.features, !features.contains(WireFeature.apps.rawValue) {
            return .refused(.unsupported(.apps, peer: peer.name, release: release))
        }
        return ControlRequestRules.sendPath(queue: queue, peer: peer, paired: trust.isPaired(peer.peerId), connected: directory.state(of: peer.id) == .connected)
    }

    /// `send` with `queue`: stored durably first, connected or not; it
    /// leaves the disk only when the peer acknowledges it.
    private func enqueue(_ data: [UInt8], for peerID: String, app: AppName, peer: PeerSnapshot, sessions: any SessionOperations,
                         then done: @escaping @MainActor (Result<SendResult, ControlError>) -> Void) {
        queued.enqueue(data, for: peerID, app: app, name: peer.name) { [appSessions] outcome in
            if case .failure(let error) = outcome { return done(.failure(error)) }
            if !app.isDefault { appSessions.inviteForQueue(peer.id, app: app) }
            sessions.drainQueue(for: peer.id)
            done(.success(SendResult(bytes: data.count, queued: true)))
        }
    }

    /// `send` with `peers` or `all` (MPC's `send(_:toPeers:with:)`): the
    /// message goes to each peer as a single `send` would take it, and the
    /// answer, once every peer's outcome is known, has one entry each.
    private func groupSend(_ params: ControlParams, app: AppName, sessions: any SessionOperations) -> ControlReply {
        let targets: [(selector: String, peer: Result<PeerSnapshot, ControlError>)]
        // `all` in an app: every connected peer whose daemon confirms the app.
        let connected: (UUID) -> Bool = { id in
            self.directory.state(of: id) == .connected && (app.isDefault || self.directory.row(id)?.apps?[app.text]?.confirmed == true)
        }
        switch ControlRequestRules.groupTargets(params, peers: directory.all, connected: connected) {
        case .success(let found): targets = found
        case .failure(let error): return .error(error)
        }
        let data: [UInt8]
        switch ControlRequestRules.message(params, maxMessage: maxMessage) {
        case .success(let message): data = message
        case .failure(let error): return .error(error)
        }
        return .later { [self] answer in
            var entries = targets.map { GroupSendEntry(selector: $0.selector, peer: try? $0.peer.get().id, name: try? $0.peer.get().name) }
            var waiting = targets.count
            let finish = { answer(.answer(.sendToMany, GroupSendResult(results: entries))) }
            guard waiting > 0 else { return finish() }
            for (index, target) in targets.enumerated() {
                let settle: @MainActor (Result<SendResult, ControlError>) -> Void = { outcome in
                    switch outcome {
                    case .success(let result): entries[index].result = result
                    case .failure(let error): entries[index].error = error
                    }
                    waiting -= 1
                    if waiting == 0 { finish() }
                }
                switch target.peer.map({ ($0, sendPath($0, app: app, queue: params.queue)) }) {
                case .success((let peer, .queue(let peerID))): enqueue(data, for: peerID, app: app, peer: peer, sessions: sessions, then: settle)
                case .success((let peer, .session)): settle(sessions.send(data, to: peer, app: app))
                case .success((_, .refused(let error))), .failure(let error): settle(.failure(error))
                }
            }
        }
    }

    /// The peer id a `peer` parameter names for the inbox: a row's (by
    /// UUID, prefix or name), or a 32-digit peer id as it is (a sender of
    /// stored messages may have no row now). nil for every sender.
    private func senderID(_ selector: String?) -> Result<String?, ControlError> {
        guard let selector else { return .success(nil) }
        if selector.utf8.count == 32, selector.allSatisfy({ $0.isHexDigit && !$0.isUppercase }) { return .success(selector) }
        switch directory.select(selector) {
        case .success(let row):
            guard let peerID = row.peerId else { return .failure(ControlError(.invalidParams, "'\(row.name)' advertises no peer id, so it cannot send messages")) }
            return .success(peerID)
        case .failure(let error):
            return .failure(error)
        }
    }
}
