import FoundationEssentials
import PeerCore
import PeerProtocol

/// Trust: what this host trusts (through ``TrustKeeper``, which writes it
/// off the main actor), and the rules that follow from it: a paired peer's
/// key and name cannot be claimed by another, `--auto-accept paired`, a
/// paired peer's proven addresses are remembered, and unpairing, from
/// either side.
@MainActor
package final class TrustDesk {
    private let keeper: TrustKeeper
    private let autoAccept: AutoAcceptPolicy
    private let directory: PeerDirectory
    private let logger: Logger
    private let clock: DaemonClock
    /// Numbers and sends an event to subscribers (given at init).
    private let emit: @MainActor (ControlEvent) -> Void
    /// A peer's trust was removed here: its queue goes with it (given at init).
    private let onUnpaired: @MainActor (_ peerID: String, _ peer: UUID) -> Void

    /// The desk of `keeper` (its store opened by the caller, so a corrupt
    /// store stops start-up before anything else runs).
    package init(keeper: TrustKeeper, autoAccept: AutoAcceptPolicy, directory: PeerDirectory, logger: Logger, clock: DaemonClock = .system,
                emit: @escaping @MainActor (ControlEvent) -> Void,
                onUnpaired: @escaping @MainActor (_ peerID: String, _ peer: UUID) -> Void) {
        self.emit = emit
        self.onUnpaired = onUnpaired
        self.keeper = keeper
        self.autoAccept = autoAccept
        self.directory = directory
        self.logger = logger
        self.clock = clock
    }

    /// The trust record of `peerID`, if it is paired.
    package func record(peerID: String) -> TrustFileRecord? { keeper.document.record(peerID: peerID) }

    /// Whether `peerID` is paired.
    package func isPaired(_ peerID: String?) -> Bool { peerID.map { keeper.document.record(peerID: $0) != nil } ?? false }

    /// Waits for a trust write under way (at shutdown).
    package func finishWriting() { keeper.finishWriting() }

    /// Every trust record, oldest pairing first.
    package var records: [TrustFileRecord] { keeper.document.peers.sorted { $0.pairedAt < $1.pairedAt } }

    /// Whether an invitation from `peerID` is accepted without a client.
    package func acceptsAutomatically(_ peerID: String?) -> Bool {
        switch autoAccept {
        case .all: return true
        case .none: return false
        case .paired: return isPaired(peerID)
        }
    }

    /// A trusted id must come with its trusted key, and a trusted name must
    /// not come with another id. Returns the mismatch, if any.
    package func violation(by session: PeerSession, claimedName: String?) -> IdentityMismatchInfo? {
        guard let peerID = session.remotePeerID, let key = session.remoteStaticKey else { return nil }
        if let record = keeper.document.record(peerID: peerID), record.publicKey != Hex.encode(key) {
            return IdentityMismatchInfo(peer: record.uuid, expected: record.publicKey, actual: Hex.encode(key), address: session.remoteAddress)
        }
        if let claimedName, let record = keeper.document.record(named: claimedName), record.peerId != peerID {
            return IdentityMismatchInfo(peer: record.uuid, expected: record.peerId, actual: peerID, address: session.remoteAddress)
        }
        return nil
    }

    /// The endpoints `session` proves for `row`: the row's endpoints at the
    /// session's address, and the endpoint a connection we dialled went to
    /// (a peer added by address has no other).
    private static func provenEndpoints(of row: PeerSnapshot, session: PeerSession) -> [Endpoint] {
        var proven = row.endpoints.filter { $0.address == session.remoteHost }
        if session.role == .inviter, let dialled = session.endpoint, !proven.contains(dialled) { proven.append(dialled) }
        return proven
    }

    /// Keeps a paired peer's current addresses in the trust store. Only
    /// endpoints at the address of its live, authenticated `session` are
    /// kept: an address someone merely advertised for the peer proves nothing.
    package func rememberAddresses(of row: PeerSnapshot, session: PeerSession) {
        guard let peerID = row.peerId, let record = keeper.document.record(peerID: peerID), session.isAuthenticated else { return }
        let proven = Self.provenEndpoints(of: row, session: session)
        guard !proven.isEmpty, record.addresses != proven else { return }
        keeper.change({ document in
            guard var current = document.record(peerID: peerID), current.addresses != proven else { return nil }
            current.addresses = proven
            return document.upserting(current)
        }, then: { [logger] result in
            if case .failure(let error) = result { logger.warning("cannot remember the addresses of '\(row.name)': \(error)") }
        })
    }

    /// Removes the trust in `peer` here; `done` gets its peer id once the
    /// trust store is written (the caller then tells the peer).
    package func unpair(_ peer: PeerSnapshot, then done: @escaping @MainActor (Result<String, ControlError>) -> Void) {
        guard let peerID = peer.peerId, isPaired(peerID) else {
            return done(.failure(ControlError(.notFound, "'\(peer.name)' is not paired")))
        }
        keeper.change({ $0.removing(peerID: peerID) }, then: { [weak self] result in
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

    /// Sets (or, with nil, clears) `peer`'s Quick Save rule for `caller`
    /// (issue 45); `done` gets its trust record once the store is written.
    /// Only a paired peer has one; another user's rule stays theirs.
    package func setQuickSave(_ peer: PeerSnapshot, folder: String?, caller: UInt32?,
                              then done: @escaping @MainActor (Result<TrustRecord, ControlError>) -> Void) {
        guard let peerID = peer.peerId, let record = record(peerID: peerID) else {
            return done(.failure(ControlError(.notFound, "'\(peer.name)' is not paired; pair first (peerctl pair \(peer.name))")))
        }
        if let refusal = QuickSaveRequest.refusal(existing: record.quickSave, caller: caller, peerName: peer.name) { return done(.failure(refusal)) }
        guard let caller else { return done(.failure(ControlError(.permissionDenied, "the kernel did not say who this client is"))) }
        let rule: QuickSaveRule?
        switch QuickSaveRequest.rule(folder: folder, uid: caller) {
        case .success(let made): rule = made
        case .failure(let error): return done(.failure(error))
        }
        keeper.change({ document in
            guard var current = document.record(peerID: peerID), current.quickSave != rule else { return nil }
            current.quickSave = rule
            return document.upserting(current)
        }, then: { [weak self] result in
            guard let self else { return }
            switch result {
            case .failure(let error):
                done(.failure(ControlError(.storageFailed, "cannot write the trust store: \(error)")))
            case .success(let changed):
                guard let now = self.record(peerID: peerID) else {
                    return done(.failure(ControlError(.notFound, "'\(peer.name)' is not paired")))
                }
                if changed {
                    self.logger.notice(rule.map { "Quick Save for '\(peer.name)': uid \($0.uid), into \($0.folder)" } ?? "Quick Save for '\(peer.name)': off")
                }
                done(.success(now.shown))
            }
        })
    }

    /// The peer removed its trust in us: remove ours; `removed` gets the
    /// peer once the trust store no longer holds it.
    package func unpairedByPeer(_ session: PeerSession, then removed: @escaping @MainActor (UUID) -> Void) {
        guard let peerID = session.remotePeerID, let peer = session.peerUUID, isPaired(peerID) else { return }
        keeper.change({ $0.removing(peerID: peerID) }, then: { [weak self] result in
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
                removed(peer)
            }
        })
    }

    /// Writes the trust record for the session's proven key; `done` gets
    /// false (logged) when the trust store cannot be written.
    package func store(for session: PeerSession, peer: UUID, name: String, now: Date, then done: @escaping @MainActor (Bool) -> Void) {
        guard let key = session.remoteStaticKey, let peerID = session.remotePeerID else { return done(false) }
        let row = directory.row(peer)
        var record = TrustFileRecord(publicKey: Hex.encode(key), peerId: peerID, name: row?.name ?? name, uuid: peer, pairedAt: now)
        if let row, case let endpoints = Self.provenEndpoints(of: row, session: session), !endpoints.isEmpty { record.addresses = endpoints }
        keeper.change({ $0.upserting(record) }, then: { [logger] result in
            if case .failure(let error) = result { logger.error("cannot store the pairing with '\(record.name)': \(error)") }
            done((try? result.get()) != nil)
        })
    }

    /// Removes the trust in `peerID` again (a pairing that ended while its
    /// trust was being written), so the two sides agree.
    package func takeBack(_ peerID: String) {
        keeper.change { $0.removing(peerID: peerID) }
    }
}
