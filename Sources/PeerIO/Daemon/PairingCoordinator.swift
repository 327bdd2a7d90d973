import FoundationEssentials
import PeerCore

/// Pairing and trust: the trust store's one owner, the pairings in
/// progress (by id), the wrong-code throttle, and the rules that follow
/// from trust (a paired peer's key and name cannot be claimed by another;
/// `--auto-accept paired`).
///
/// ``PairingLifecycle`` (run by each ``PeerSession``) is the exchange
/// itself; this component keeps the books and stores the result.
@MainActor
public final class PairingCoordinator {
    private let trust: TrustKeeper
    /// `pairAccept` answers waiting for the pairing's end (the trust write).
    private var acceptAnswers: [String: @MainActor (Result<PeerSnapshot, ControlError>) -> Void] = [:]
    private var throttle = PairingThrottle()
    private var sessions: [String: PeerSession] = [:]
    private var book = PairingBook()
    /// Peers to pair with once the session being set up is connected.
    private var pairWhenConnected: Set<UUID> = []
    private let timeout: TimeInterval
    private let autoAccept: AutoAcceptPolicy
    private let logger: Logger
    private let directory: PeerDirectory
    private let clock: DaemonClock
    /// Numbers and sends an event to subscribers (set before use).
    public var emit: @MainActor (ControlEvent) -> Void = { _ in }
    /// Clients subscribed to events, who could confirm a code (set before use).
    public var subscribers: @MainActor () -> Int = { 0 }
    /// A peer's trust was removed here (its queue goes with it; set before use).
    public var onUnpaired: @MainActor (_ peerID: String, _ peer: UUID) -> Void = { _, _ in }

    /// The coordinator of `trust` (opened by the caller, so a corrupt store
    /// stops start-up before anything else runs).
    public init(trust: TrustKeeper, timeout: TimeInterval, autoAccept: AutoAcceptPolicy, directory: PeerDirectory, logger: Logger,
                clock: DaemonClock = .system) {
        self.clock = clock
        self.trust = trust
        self.timeout = timeout
        self.autoAccept = autoAccept
        self.directory = directory
        self.logger = logger
    }

    // MARK: Trust

    /// The trust record of `peerID`, if it is paired.
    public func record(peerID: String) -> TrustRecord? { trust.document.record(peerID: peerID) }

    /// Whether `peerID` is paired.
    public func isPaired(_ peerID: String?) -> Bool { peerID.map { trust.document.record(peerID: $0) != nil } ?? false }

    /// Waits for a trust write under way (at shutdown).
    public func finishWriting() { trust.finishWriting() }

    /// Every trust record, oldest pairing first.
    public var records: [TrustRecord] { trust.document.peers.sorted { $0.pairedAt < $1.pairedAt } }

    /// Whether an invitation from `peerID` is accepted without a client.
    public func acceptsAutomatically(_ peerID: String?) -> Bool {
        switch autoAccept {
        case .all: return true
        case .none: return false
        case .paired: return isPaired(peerID)
        }
    }

    /// A trusted id must come with its trusted key, and a trusted name must
    /// not come with another id. Returns the mismatch, if any.
    public func violation(by session: PeerSession, claimedName: String?) -> IdentityMismatchInfo? {
        guard let peerID = session.remotePeerID, let key = session.remoteStaticKey else { return nil }
        if let record = trust.document.record(peerID: peerID), record.publicKey != Hex.encode(key) {
            return IdentityMismatchInfo(peer: record.uuid, expected: record.publicKey, actual: Hex.encode(key), address: session.remoteAddress)
        }
        if let claimedName, let record = trust.document.record(named: claimedName), record.peerId != peerID {
            return IdentityMismatchInfo(peer: record.uuid, expected: record.peerId, actual: peerID, address: session.remoteAddress)
        }
        return nil
    }

    /// Keeps a paired peer's current addresses in the trust store. Only
    /// endpoints at the address of its live, authenticated `session` are
    /// kept: an address someone merely advertised for the peer proves nothing.
    public func rememberAddresses(of row: PeerSnapshot, session: PeerSession) {
        guard let peerID = row.peerId, let record = trust.document.record(peerID: peerID), session.isAuthenticated else { return }
        let proven = row.endpoints.filter { $0.address == session.remoteHost }
        guard !proven.isEmpty, record.addresses != proven else { return }
        trust.change({ document in
            guard var current = document.record(peerID: peerID), current.addresses != proven else { return nil }
            current.addresses = proven
            return document.upserting(current)
        }, then: { [logger] result in
            if case .failure(let error) = result { logger.warning("cannot remember the addresses of '\(row.name)': \(error)") }
        })
    }

    /// Removes the trust in `peer` here; `done` gets its peer id once the
    /// trust store is written (the caller then tells the peer).
    public func unpair(_ peer: PeerSnapshot, then done: @escaping @MainActor (Result<String, ControlError>) -> Void) {
        guard let peerID = peer.peerId, isPaired(peerID) else {
            return done(.failure(ControlError(.notFound, "'\(peer.name)' is not paired")))
        }
        trust.change({ $0.removing(peerID: peerID) }, then: { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                done(.failure(ControlError(.storageFailed, "cannot write the trust store: \(error)")))
            case .success(false):
                done(.failure(ControlError(.notFound, "'\(peer.name)' is not paired")))
            case .success(true):
                self.onUnpaired(peerID, peer.id)
                self.directory.refresh(peer.id)
                self.logger.notice("unpaired '\(peer.name)' (\(peerID))")
                self.emit(ControlEvent(seq: 0, type: .unpaired, time: self.clock.now(), peer: self.directory.row(peer.id)))
                done(.success(peerID))
            }
        })
    }

    /// The peer removed its trust in us: remove ours.
    public func unpairedByPeer(_ session: PeerSession) {
        guard let peerID = session.remotePeerID, let peer = session.peerUUID, isPaired(peerID) else { return }
        trust.change({ $0.removing(peerID: peerID) }, then: { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                self.logger.error("cannot remove '\(peerID)' from the trust store: \(error)")
            case .success(false):
                break
            case .success(true):
                self.directory.refresh(peer)
                self.logger.notice("'\(self.directory.row(peer)?.name ?? peerID)' unpaired us; trust removed")
                self.emit(ControlEvent(seq: 0, type: .unpaired, time: self.clock.now(), peer: self.directory.row(peer)))
            }
        })
    }

    // MARK: Pairings

    /// The pairings in progress, soonest to expire first.
    public var inProgress: [PairingInfo] { book.all }

    /// Starts pairing on `session` now if it can carry it, else once it is
    /// connected (a session being set up, or one just dialled to pair).
    public func pair(on session: PeerSession, peer: UUID) {
        if session.canCarryPairing {
            session.startPairing(nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: timeout)
        } else {
            pairWhenConnected.insert(peer)
        }
    }

    /// The session is connected: start the pairing a client asked for.
    public func connected(_ session: PeerSession) {
        guard let peer = session.peerUUID, pairWhenConnected.remove(peer) != nil, session.canCarryPairing else { return }
        session.startPairing(nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: timeout)
    }

    /// `pairReject`: the pairing whose id starts with `prefix` ends.
    public func reject(_ prefix: String) -> Result<PairingInfo, ControlError> {
        switch match(prefix) {
        case .success(let (session, pairing)):
            session.rejectPairing()
            return .success(pairing)
        case .failure(let error):
            return .failure(error)
        }
    }

    /// `pairAccept`: the user typed `code` for the pairing whose id starts
    /// with `prefix`. `done` gets the paired row once the pairing ends (a
    /// right code ends it once the trust store is written).
    public func accept(_ prefix: String, code: String?, then done: @escaping @MainActor (Result<PeerSnapshot, ControlError>) -> Void) {
        let session: PeerSession
        let pairing: PairingInfo
        switch match(prefix) {
        case .success(let found): (session, pairing) = found
        case .failure(let error): return done(.failure(error))
        }
        guard !pairing.initiator, case .awaitingUser? = session.pairing?.step else {
            return done(.failure(ControlError(.invalidParams, "this host started that pairing; the code is confirmed on the other host")))
        }
        guard let code, PairingCode.isWellFormed(code) else {
            return done(.failure(ControlError(.invalidParams, "'pairAccept' needs params.code: the 6 digits shown on '\(pairing.name)'")))
        }
        // Answered from perform(_:on:now:), at .paired or .failed.
        acceptAnswers[pairing.id] = done
        session.pairingCodeEntered(code)
    }

    /// The end of a pairing, as `pairAccept` answers it.
    private func answerAccept(_ id: String, peer: UUID, name: String, failure: PairingFailure?, text: String) {
        guard let answer = acceptAnswers.removeValue(forKey: id) else { return }
        switch failure {
        case nil:
            if let row = directory.row(peer) { answer(.success(row)) } else { answer(.failure(ControlError(.notFound, "the paired row is gone"))) }
        case .wrongCode?:
            answer(.failure(ControlError(.wrongCode, "the code does not match the one shown on '\(name)'; the pairing failed")))
        case .storageFailed?:
            answer(.failure(ControlError(.storageFailed, "the codes matched, but the trust store could not be written (see the log); the pairing was rejected on both hosts")))
        case let other?:
            answer(.failure(ControlError(.notConnected, "the pairing with '\(name)' ended: \(other.rawValue): \(text)")))
        }
    }

    private func match(_ prefix: String) -> Result<(PeerSession, PairingInfo), ControlError> {
        switch book.match(prefix) {
        case .success(let pairing):
            guard let session = sessions[pairing.id] else {
                return .failure(ControlError(.notFound, "no pairing '\(prefix.lowercased())' in progress (it may have timed out)"))
            }
            return .success((session, pairing))
        case .failure(let error):
            return .failure(error)
        }
    }

    /// The peer asks to pair.
    public func requested(on session: PeerSession, now: Date) {
        guard let peerID = session.remotePeerID, let peer = session.peerUUID else { return }
        if let until = throttle.refusedUntil(peerID, now: now) {
            logger.notice("refusing a pairing request from \(peerID): too many wrong codes; locked out for \(Int(until.timeIntervalSince(now))) s")
            session.answerPairingRequest(accept: false, nonce: [], timeout: 0, refusal: .lockedOut,
                                         text: "too many wrong codes; try again in \(Int(until.timeIntervalSince(now))) s")
            return
        }
        guard subscribers() > 0 else {
            session.answerPairingRequest(accept: false, nonce: [], timeout: 0, refusal: .rejected, text: "no client is subscribed on this host to confirm the code")
            return
        }
        let id = UUID().uuidString.lowercased()
        session.pairingID = id
        sessions[id] = session
        book.record(PairingInfo(id: id, peer: peer, name: directory.row(peer)?.name ?? "", peerId: peerID, initiator: false, code: nil,
                                expires: now.addingTimeInterval(timeout)))
        session.answerPairingRequest(accept: true, nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: timeout)
    }

    /// A pairing step of `session`.
    public func perform(_ action: PairingAction, on session: PeerSession, now: Date) {
        guard let peer = session.peerUUID else { return }
        if session.pairingID == nil, session.role == .inviter || session.pairing?.role == .inviter {
            let id = UUID().uuidString.lowercased()
            session.pairingID = id
            sessions[id] = session
            book.record(PairingInfo(id: id, peer: peer, name: directory.row(peer)?.name ?? "", peerId: session.remotePeerID ?? "",
                                    initiator: true, code: nil, expires: now.addingTimeInterval(timeout)))
        }
        guard let id = session.pairingID, var pairing = book[id] else { return }
        switch action {
        case .send:
            break
        case .showCode(let code):
            pairing.code = code
            book.record(pairing)
            logger.notice("pairing with '\(pairing.name)': code \(code); confirm it on the other host")
            emit(ControlEvent(seq: 0, type: .pairingCode, time: now, peer: directory.row(peer), pairing: pairing))
        case .askUser(let code):
            pairing.code = code
            book.record(pairing)
            logger.notice("'\(pairing.name)' asks to pair; confirm with the code shown on it (pairing \(id))")
            emit(ControlEvent(seq: 0, type: .pairingRequest, time: now, peer: directory.row(peer), pairing: pairing))
        case .storeTrust:
            // Responder: the trust goes to disk before the confirmation goes
            // out, and nothing the peer sends meanwhile overtakes it.
            session.holdDelivery()
            storeTrust(for: session, peer: peer, name: pairing.name, now: now) { [weak self] stored in
                defer { session.releaseDelivery() }
                session.trustStored(stored)
                // The pairing ended (timed out, the session closed) while the
                // trust was being written: take it back, so the two sides agree.
                if stored, session.pairing?.step != .paired, let peerID = session.remotePeerID {
                    self?.trust.change { $0.removing(peerID: peerID) }
                }
            }
        case .paired:
            forget(id)
            guard let peerID = session.remotePeerID else { return }
            // The responder stored the trust already; the initiator stores it now.
            if trust.document.record(peerID: peerID)?.publicKey == session.remoteStaticKey.map(Hex.encode) {
                paired(session, peer: peer, peerID: peerID, pairing: pairing, now: now)
                return
            }
            // What the peer sends next (its close) waits until the trust
            // is stored and `paired` said, as the responder's did.
            session.holdDelivery()
            storeTrust(for: session, peer: peer, name: pairing.name, now: now) { [weak self] stored in
                defer { session.releaseDelivery() }
                guard let self else { return }
                guard stored else {
                    // The responder trusts us already: take that back, so the two agree.
                    session.sendUnpair()
                    self.emit(ControlEvent(seq: 0, type: .pairingFailed, time: self.clock.now(), peer: self.directory.row(peer), pairing: pairing,
                                           pairingFailure: .storageFailed))
                    if session.isForPairing { session.close("pairing failed: storageFailed") }
                    return
                }
                self.paired(session, peer: peer, peerID: peerID, pairing: pairing, now: self.clock.now())
            }
        case .failed(let failure, let text):
            forget(id)
            session.pairingID = nil
            if failure == .wrongCode, !pairing.initiator, let until = throttle.recordFailure(pairing.peerId, now: now) {
                logger.warning("three wrong pairing codes from '\(pairing.name)'; refusing its pairing requests until \(until.formatted(.iso8601))")
            }
            logger.notice("pairing with '\(pairing.name)' failed: \(failure.rawValue): \(text)")
            emit(ControlEvent(seq: 0, type: .pairingFailed, time: now, peer: directory.row(peer), pairing: pairing, pairingFailure: failure))
            answerAccept(id, peer: peer, name: pairing.name, failure: failure, text: text)
            // A session opened only to pair ends with the pairing.
            if session.isForPairing { session.close("pairing failed: \(failure.rawValue)") }
        }
    }

    /// Both sides trust each other now: say so.
    private func paired(_ session: PeerSession, peer: UUID, peerID: String, pairing: PairingInfo, now: Date) {
        directory.refresh(peer)
        let name = trust.document.record(peerID: peerID)?.name ?? pairing.name
        logger.notice("paired with '\(name)' (\(peerID))")
        emit(ControlEvent(seq: 0, type: .paired, time: now, peer: directory.row(peer), pairing: pairing))
        answerAccept(pairing.id, peer: peer, name: pairing.name, failure: nil, text: "")
        // A session opened to pair ends with it; paired peers then
        // connect afresh, as peers that trust each other.
        if session.isForPairing { session.close("paired; a new session follows", reason: .closedLocally) }
    }

    private func forget(_ id: String) {
        sessions[id] = nil
        book.remove(id)
    }

    /// Writes the trust record for the session's proven key; `done` gets
    /// false (logged) when the trust store cannot be written.
    private func storeTrust(for session: PeerSession, peer: UUID, name: String, now: Date, then done: @escaping @MainActor (Bool) -> Void) {
        guard let key = session.remoteStaticKey, let peerID = session.remotePeerID else { return done(false) }
        let row = directory.row(peer)
        var record = TrustRecord(publicKey: Hex.encode(key), peerId: peerID, name: row?.name ?? name, uuid: peer, pairedAt: now)
        if let endpoints = row?.endpoints.filter({ $0.address == session.remoteHost }), !endpoints.isEmpty { record.addresses = endpoints }
        trust.change({ $0.upserting(record) }, then: { [logger] result in
            if case .failure(let error) = result { logger.error("cannot store the pairing with '\(record.name)': \(error)") }
            done((try? result.get()) != nil)
        })
    }
}
