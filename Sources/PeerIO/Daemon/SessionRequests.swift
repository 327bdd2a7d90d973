import FoundationEssentials
import PeerCore
import PeerProtocol

/// The requests of local clients that open, use or close sessions
/// (``SessionOperations``, asked by ``ControlRouter``): invite, pair,
/// unpair, send, disconnect. Sessions themselves are the
/// ``SessionDirector``'s.
@MainActor
package final class SessionRequests: SessionOperations {
    private let director: SessionDirector
    private let directory: PeerDirectory
    private let pairing: PairingCoordinator
    private let trust: TrustDesk
    private let queued: QueuedDelivery
    /// Each app's state with each peer: an app's send needs it connected.
    private let appSessions: AppSessions
    private let ownPeerID: String
    private let pairingTimeout: TimeInterval
    /// What `add` must pass before a dial.
    private let addGate: AddGate

    /// Requests served through `director`.
    init(director: SessionDirector, directory: PeerDirectory, pairing: PairingCoordinator, trust: TrustDesk, queued: QueuedDelivery,
         appSessions: AppSessions, ownPeerID: String, pairingTimeout: TimeInterval, addGate: AddGate) {
        self.appSessions = appSessions
        self.addGate = addGate
        self.director = director
        self.directory = directory
        self.pairing = pairing
        self.trust = trust
        self.queued = queued
        self.ownPeerID = ownPeerID
        self.pairingTimeout = pairingTimeout
    }

    /// Invites the peer, or reuses its session (`invite`).
    package func invite(_ peer: PeerSnapshot, context: [UInt8], timeout: TimeInterval, app: AppName) -> Result<InviteResult, ControlError> {
        if let existing = director.session(for: peer.id) {
            // A session accepted for an app alone: the default app asks to join it.
            if app.isDefault, existing.isConnected, !existing.carriesDefault {
                existing.inviteDefault(context: context, timeout: timeout)
                return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: true, joining: true))
            }
            // The peer is inviting us at this moment: our invitation is our yes.
            if existing.role == .invitee {
                if existing.phase == .awaitingDecision { existing.decide(accept: true) } else { existing.autoAccept = true }
            }
            return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: true))
        }
        if director.isAwaitingCrossing(peer.id) {
            return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: true))
        }
        let endpoints = dialEndpoints(peer)
        guard !endpoints.isEmpty else {
            return .failure(ControlError(.unreachable, "no address is known for '\(peer.name)' (\(peer.lost ? "it is lost" : "it has no endpoints")); if mDNS cannot reach it, add it by address: peerctl add HOST[:PORT]"))
        }
        guard peer.peerId != ownPeerID else { return .failure(ControlError(.invalidParams, "that is this host")) }
        if let limit = director.opener.dialLimit(peer.peerId) { return .failure(ControlError(.overloaded, "cannot invite '\(peer.name)': \(limit)")) }
        guard director.opener.dial(peer.id, endpoints: endpoints, expected: peer.peerId, context: context, timeout: timeout, app: app) else {
            return .failure(ControlError(.unreachable, "cannot connect to any address of '\(peer.name)'"))
        }
        return .success(InviteResult(peer: directory.row(peer.id) ?? peer, existing: false))
    }

    /// Dials a peer at an address (`add`): no mDNS, no row until it proves
    /// its key (``SessionAdoption``); then it is a row like any other, and
    /// the session goes on as an invitation.
    package func add(_ endpoint: Endpoint, context: [UInt8], timeout: TimeInterval, uid: UInt32?,
                    then done: @escaping @MainActor (Result<InviteResult, ControlError>) -> Void) {
        if let refusal = addGate.refusal(endpoint, uid: uid) { return done(.failure(refusal)) }
        if let limit = director.opener.dialLimit(nil) { return done(.failure(ControlError(.overloaded, "cannot add \(endpoint.hostPort): \(limit)"))) }
        do {
            let session = try director.opener.dial(address: endpoint, context: context, timeout: timeout)
            director.addressDials.wait(for: session, done: done)
        } catch {
            done(.failure(ControlError(.unreachable, "cannot connect to \(endpoint.hostPort): \(error)")))
        }
    }

    /// The addresses to dial `peer` at: its endpoints, or where a paired
    /// peer was last connected when it has none (a peer added by address,
    /// or one mDNS does not show now).
    private func dialEndpoints(_ peer: PeerSnapshot) -> [Endpoint] {
        let trusted = peer.peerId.flatMap { trust.record(peerID: $0) }
        return director.opener.dialOrder(trusted?.dialAddresses(shown: peer.endpoints) ?? peer.endpoints)
    }

    /// Closes the session with the peer (`disconnect`).
    package func disconnect(_ peer: PeerSnapshot) -> Result<PeerResult, ControlError> {
        guard let session = director.session(for: peer.id) else { return .failure(ControlError(.notConnected, "no session with '\(peer.name)'")) }
        session.close("closed by a local client")
        return .success(PeerResult(peer: directory.row(peer.id) ?? peer))
    }

    /// Queues one message of `app` on the peer's connected session (plain `send`).
    package func send(_ data: [UInt8], to peer: PeerSnapshot, app: AppName) -> Result<SendResult, ControlError> {
        guard let session = director.session(for: peer.id), session.isConnected else {
            return .failure(ControlError(.notConnected, "'\(peer.name)' is not connected; invite it first, or use --queue for a paired peer"))
        }
        if app.isDefault, !session.carriesDefault { return .failure(.appOnly(peer.name, app: session.admission)) }
        switch session.appRefusal(app) {
        case .unsupported(let release)?: return .failure(.unsupported(.apps, peer: peer.name, release: release))
        case .busy(let text)?: return .failure(ControlError(.appBusy, "'\(peer.name)' refuses app '\(app.text)' for now (\(text)); retry once it has room (--queue waits for it)"))
        case nil: break
        }
        guard app.isDefault || appSessions.state(peer.id, app) == .connected else {
            return .failure(ControlError(.notConnected, "app '\(app.text)' is not connected with '\(peer.name)'; invite it first (peerctl --app \(app.text) invite \(peer.name)), or use --queue for a paired peer"))
        }
        guard let number = session.send(data, app: app) else {
            return .failure(ControlError(.busy, "the send queue to '\(peer.name)' is full (\(session.queuedBytes) bytes); retry shortly"))
        }
        // OK means: queued on this session, in order. A `delivered`
        // event says when the peer's daemon has it.
        return .success(SendResult(bytes: data.count, session: session.number, number: number))
    }

    /// Starts pairing with the peer, dialling it if need be (`pair`).
    package func pair(with peer: PeerSnapshot) -> Result<PeerSnapshot, ControlError> {
        if let session = director.session(for: peer.id) {
            pairing.pair(on: session, peer: peer.id)
            return .success(directory.row(peer.id) ?? peer)
        }
        let endpoints = dialEndpoints(peer)
        guard !endpoints.isEmpty else {
            return .failure(ControlError(.unreachable, "no address is known for '\(peer.name)'; if mDNS cannot reach it, add it by address: peerctl add HOST[:PORT]"))
        }
        if let limit = director.opener.dialLimit(peer.peerId) { return .failure(ControlError(.overloaded, "cannot pair with '\(peer.name)': \(limit)")) }
        guard director.opener.dial(peer.id, endpoints: endpoints, expected: peer.peerId, context: [], timeout: pairingTimeout, pairing: true) else {
            return .failure(ControlError(.unreachable, "cannot connect to any address of '\(peer.name)'"))
        }
        if let session = director.session(for: peer.id) { pairing.pair(on: session, peer: peer.id) }
        return .success(directory.row(peer.id) ?? peer)
    }

    /// Removes the trust here and tells the peer (`unpair`), once the
    /// trust store is written.
    package func unpair(_ peer: PeerSnapshot, then done: @escaping @MainActor (Result<PeerSnapshot, ControlError>) -> Void) {
        trust.unpair(peer) { [weak self] outcome in
            guard let self else { return }
            if case .failure(let error) = outcome { return done(.failure(error)) }
            if let session = self.director.session(for: peer.id) {
                session.sendUnpair()
                session.close("unpaired")
            }
            done(.success(self.directory.row(peer.id) ?? peer))
        }
    }

    /// Hands the peer's queued messages to its session now.
    package func drainQueue(for peer: UUID) {
        director.drainQueue(for: peer)
    }
}
