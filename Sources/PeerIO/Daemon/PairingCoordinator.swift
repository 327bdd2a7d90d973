import FoundationEssentials
import PeerCore
import PeerProtocol

/// Pairings: those in progress (by id), the wrong-code throttle, and what
/// each step means (a code to show or to ask for, trust to store, an end
/// to report).
///
/// ``PairingLifecycle`` (run by each ``PeerSession``) is the exchange
/// itself; this component keeps the books, and ``TrustDesk`` stores the
/// result.
@MainActor
package final class PairingCoordinator {
    private let trust: TrustDesk
    /// `pairAccept` answers waiting for the pairing's end (the trust write).
    private var acceptAnswers: [String: @MainActor (Result<PeerSnapshot, ControlError>) -> Void] = [:]
    private var throttle = PairingThrottle()
    private var sessions: [String: PeerSession] = [:]
    private var book = PairingBook()
    /// Peers to pair with once the session being set up is connected.
    private var pairWhenConnected: Set<UUID> = []
    private let timeout: TimeInterval
    private let logger: Logger
    private let directory: PeerDirectory
    private let clock: DaemonClock
    /// Numbers and sends an event to subscribers (given at init).
    private let emit: @MainActor (ControlEvent) -> Void
    /// Clients subscribed to events, who could confirm a code (given at init).
    private let subscribers: @MainActor () -> Int

    /// Pairings whose results `trust` stores.
    package init(trust: TrustDesk, timeout: TimeInterval, directory: PeerDirectory, logger: Logger, clock: DaemonClock = .system,
                emit: @escaping @MainActor (ControlEvent) -> Void, subscribers: @escaping @MainActor () -> Int) {
        self.emit = emit
        self.subscribers = subscribers
        self.clock = clock
        self.trust = trust
        self.timeout = timeout
        self.directory = directory
        self.logger = logger
    }

    /// The pairings in progress, soonest to expire first.
    package var inProgress: [PairingInfo] { book.all }

    /// Starts pairing on `session` now if it can carry it, else once it is
    /// connected (a session being set up, or one just dialled to pair).
    package func pair(on session: PeerSession, peer: UUID) {
        if session.canCarryPairing {
            session.startPairing(nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: timeout)
        } else {
            pairWhenConnected.insert(peer)
        }
    }

    /// The session is connected: start the pairing a client asked for.
    package func connected(_ session: PeerSession) {
        guard let peer = session.peerUUID, pairWhenConnected.remove(peer) != nil, session.canCarryPairing else { return }
        session.startPairing(nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: timeout)
    }

    /// `pairReject`: the pairing whose id starts with `prefix` ends.
    package func reject(_ prefix: String) -> Result<PairingInfo, ControlError> {
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
    package func accept(_ prefix: String, code: String?, then done: @escaping @MainActor (Result<PeerSnapshot, ControlError>) -> Void) {
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
    package func requested(on session: PeerSession, now: Date) {
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
        sessions[id] = session
        book.record(PairingInfo(id: id, peer: peer, name: directory.row(peer)?.name ?? "", peerId: peerID, initiator: false, code: nil,
                                expires: now.addingTimeInterval(timeout)))
        session.answerPairingRequest(accept: true, nonce: Sodium.randomBytes(PairingCode.nonceLength), timeout: timeout)
    }

    /// A pairing step of `session`.
    package func perform(_ action: PairingAction, on session: PeerSession, now: Date) {
        guard let peer = session.peerUUID else { return }
        if pairingID(of: session) == nil, session.role == .inviter || session.pairing?.role == .inviter {
            let id = UUID().uuidString.lowercased()
            sessions[id] = session
            book.record(PairingInfo(id: id, peer: peer, name: directory.row(peer)?.name ?? "", peerId: session.remotePeerID ?? "",
                                    initiator: true, code: nil, expires: now.addingTimeInterval(timeout)))
        }
        guard let id = pairingID(of: session), var pairing = book[id] else { return }
        switch action {
        case .send:
            break
        case .showCode(let code):
            pairing.code = code
            book.record(pairing)
            logger.notice("pairing with '\(pairing.name)': code \(code); confirm it on the other host")
            emit(ControlEvent(seq: 0, type: .pairingCode, time: now, peer: directory.row(peer), pairing: pairing))
        case .askUser:
            // Passkey entry: the code stays inside the pairing, never shown
            // here, so what the user types can only come from the other host.
            pairing.awaitingCode = true
            book.record(pairing)
            logger.notice("'\(pairing.name)' asks to pair; type the code shown on it (pairing \(id))")
            emit(ControlEvent(seq: 0, type: .pairingRequest, time: now, peer: directory.row(peer), pairing: pairing))
        case .storeTrust:
            // Responder: the trust goes to disk before the confirmation goes
            // out, and nothing the peer sends meanwhile overtakes it.
            session.holdDelivery()
            trust.store(for: session, peer: peer, name: pairing.name, now: now) { [weak self] stored in
                defer { session.releaseDelivery() }
                session.trustStored(stored)
                // The pairing ended (timed out, the session closed) while the
                // trust was being written: take it back, so the two sides agree.
                if stored, session.pairing?.step != .paired, let peerID = session.remotePeerID {
                    self?.trust.takeBack(peerID)
                }
            }
        case .paired:
            forget(id)
            guard let peerID = session.remotePeerID else { return }
            // The responder stored the trust already; the initiator stores it now.
            if trust.record(peerID: peerID)?.publicKey == session.remoteStaticKey.map(Hex.encode) {
                paired(session, peer: peer, peerID: peerID, pairing: pairing, now: now)
                return
            }
            // What the peer sends next (its close) waits until the trust
            // is stored and `paired` said, as the responder's did.
            session.holdDelivery()
            trust.store(for: session, peer: peer, name: pairing.name, now: now) { [weak self] stored in
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
        let name = trust.record(peerID: peerID)?.name ?? pairing.name
        logger.notice("paired with '\(name)' (\(peerID))")
        emit(ControlEvent(seq: 0, type: .paired, time: now, peer: directory.row(peer), pairing: pairing))
        answerAccept(pairing.id, peer: peer, name: pairing.name, failure: nil, text: "")
        // A session opened to pair ends with it; paired peers then
        // connect afresh, as peers that trust each other.
        if session.isForPairing { session.close("paired; a new session follows", reason: .closedLocally) }
    }

    /// The id of the pairing on `session` (the coordinator's own book,
    /// looked up: the session keeps no copy).
    private func pairingID(of session: PeerSession) -> String? { sessions.first { $0.value === session }?.key }

    private func forget(_ id: String) {
        sessions[id] = nil
        book.remove(id)
    }
}
