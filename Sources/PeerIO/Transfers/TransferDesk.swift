import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// Files between peers (issue 12): every transfer in both directions, the
/// wire messages of docs/protocol.md §8, the clients' requests, and the
/// transfer events. It owns the transfers and the download directory; the
/// sessions are the ``SessionDirector``'s, asked for by peer.
@MainActor
public final class TransferDesk {
    /// Finished transfers kept for `transfers`.
    static let recentKept = 50
    /// Offers from one peer at once, and from all peers.
    static let maxIncomingPerPeer = 8
    static let maxIncoming = 64

    private let downloads: String
    /// Accepted offers, remembered in the state directory (never in a
    /// download folder, where a peer's bytes land).
    let acceptances: AcceptanceStore
    private let offerTimeout: TimeInterval
    /// How long the files of a stopped transfer are kept (``LeftoverSweep``).
    private let partialLifetime: TimeInterval
    /// When the last sweep started; nil before the first.
    private var sweptAt: Date?
    /// Sweeps run once an hour (and at the first tick).
    static let sweepInterval: TimeInterval = 3600
    private let policy: AutoAcceptPolicy
    private let logger: Logger
    private let clock: DaemonClock
    /// The boot that writes records now (``BlockRecord``).
    let bootID: [UInt8]
    /// Where the last step of each file (fsync, rename) runs.
    let disk = DispatchQueue(label: "peerd.transfers", qos: .utility)
    private var rootFD: FileDescriptor?
    var outgoing: [FlowID: OutgoingTransfer] = [:]
    var incoming: [FlowID: IncomingTransfer] = [:]
    /// Offers whose manifest is still arriving.
    var pendingOffers: [FlowID: IncomingTransfer] = [:]
    /// Ended transfers, newest last.
    var recent: [TransferInfo] = []

    /// Sessions, rows, trust, deciders and events: the rest of the daemon,
    /// given at init (issue 21, point 8).
    private let surroundings: any TransferSurroundings

    /// The session counting for `peer`.
    func session(_ peer: UUID) -> (any BulkSession)? { surroundings.session(for: peer) }
    /// The peer's row.
    func row(_ peer: UUID) -> PeerSnapshot? { surroundings.row(peer) }
    /// Whether `peerID` is paired.
    func isPaired(_ peerID: String) -> Bool { surroundings.isPaired(peerID) }
    /// Subscribed clients that could decide an offer.
    func deciders() -> Int { surroundings.deciders }
    /// Sends an event.
    func emit(_ kind: EventKind, _ info: TransferInfo) { surroundings.transferEvent(kind, info) }

    /// A desk landing files under `downloads` and keeping its records in
    /// `stateDirectory`; `runtimeDirectory` is one emptied at boot (the
    /// control socket's), for the boot id when `/proc` does not show it.
    public init(downloads: String, stateDirectory: String, runtimeDirectory: String, offerTimeout: TimeInterval,
                partialLifetime: TimeInterval, policy: AutoAcceptPolicy, surroundings: any TransferSurroundings, logger: Logger, clock: DaemonClock) {
        self.surroundings = surroundings
        self.downloads = downloads
        self.partialLifetime = partialLifetime
        acceptances = AcceptanceStore(stateDirectory: stateDirectory)
        self.offerTimeout = offerTimeout
        self.policy = policy
        self.logger = logger
        self.clock = clock
        bootID = BootIdentity.read(runtimeDirectory: runtimeDirectory)
    }

    /// The download directory, opened (and made) on first use, and again
    /// if it was removed meanwhile (a user cleaning up).
    func root() throws(SystemError) -> FileDescriptor {
        if let rootFD {
            if let info = try? rootFD.status(), info.st_nlink > 0 { return rootFD }
            rootFD.close()
            self.rootFD = nil
        }
        let fd = try DownloadFolder.openRoot(downloads)
        rootFD = fd
        return fd
    }

    // MARK: Sessions

    /// A session with the peer is up: unfinished transfers to it are offered again.
    public func sessionUp(_ session: any BulkSession) {
        guard let peer = session.peerUUID else { return }
        // Resume: every unfinished transfer to this peer is offered again.
        for transfer in outgoing.values where transfer.peer == peer && transfer.manifestComplete && !transfer.state.isFinished {
            transfer.offered()
            for part in transfer.offerMessages() { session.sendBulk(part) }
            logger.info("transfer \(transfer.flow): offered to '\(transfer.peerName)'")
        }
    }

    /// The session with the peer ended: its transfers wait for the next.
    public func sessionDown(_ session: any BulkSession) {
        guard let peer = session.peerUUID, self.session(peer) == nil || self.session(peer) === session else { return }
        for transfer in outgoing.values where transfer.peer == peer && transfer.state == .active || transfer.peer == peer && transfer.state == .offered && transfer.manifestComplete {
            transfer.state = .interrupted
            emit(.transferProgress, info(transfer))
        }
        pendingOffers = pendingOffers.filter { $0.value.peer != peer }
        for transfer in incoming.values where transfer.peer == peer && transfer.state == .active {
            transfer.state = .interrupted
            transfer.interruptedAt = clock.now()
            transfer.closePartials()
            emit(.transferProgress, info(transfer))
        }
    }

    /// The transfers sending to `peer` now, in a stable order (for turns).
    func sendingFlows(to peer: UUID) -> [FlowID] {
        outgoing.values.filter { $0.peer == peer && $0.state == .active }.map(\.flow).sorted { $0.bytes.lexicographicallyPrecedes($1.bytes) }
    }

    /// One turn of `flow` on `session`: up to `limit` bytes. Returns the bytes sent.
    @discardableResult
    func pump(_ flow: FlowID, on session: any BulkSession, limit: Int) -> Int {
        guard let transfer = outgoing[flow] else { return 0 }
        return pump(transfer, session, limit: limit)
    }

    @discardableResult
    func pump(_ transfer: OutgoingTransfer, _ session: any BulkSession, limit: Int = .max) -> Int {
        let before = transfer.wireBytes
        let outcome = transfer.pump(into: session, limit: limit, now: clock.now()) { [unowned self] _ in emit(.transferProgress, info(transfer)) }
        switch outcome {
        case .waiting, .sentAll:
            break
        case .failed(let reason, let text):
            session.sendBulk(.cancel(transfer.flow, reason: reason, text: text))
            end(transfer, .failed, reason, text)
        }
        return Int(transfer.wireBytes - before)
    }

    /// A transfer message arrived.
    public func session(_ session: any BulkSession, bulk message: BulkMessage) {
        guard let peer = session.peerUUID, let peerID = session.remotePeerID else { return }
        let flow = message.flow
        switch message {
        case .offer(_, let more, let totalFiles, let totalBytes, let files):
            offerArrived(session, peer: peer, peerID: peerID, flow: flow, part: files, more: more, totalFiles: totalFiles, totalBytes: totalBytes)
        case .answer(_, let more, let files):
            guard let transfer = outgoing[flow], transfer.peer == peer else { return stray(session, flow, StrayFlowRule.of(message)) }
            switch transfer.answered(files, more: more, now: clock.now()) {
            case .failure(let error):
                session.sendBulk(.cancel(flow, reason: .protocolError, text: error.message))
                end(transfer, .failed, .protocolError, "the receiver's answer: \(error.message)")
            case .success(false):
                break
            case .success(true):
                if transfer.accepted.files == 0 {
                    end(transfer, .declined, .declined, "the receiver accepted none of the files")
                } else {
                    logger.info("transfer \(flow): '\(transfer.peerName)' accepted \(transfer.accepted.files) of \(transfer.files.count) files")
                    emit(.transferProgress, info(transfer))
                    session.wantsBulkTurn()
                }
            }
        case .credit(_, let bytes):
            guard let transfer = outgoing[flow], transfer.peer == peer else { return stray(session, flow, StrayFlowRule.of(message)) }
            guard transfer.granted(bytes) else {
                session.sendBulk(.cancel(flow, reason: .protocolError, text: "credit past the largest window"))
                return end(transfer, .failed, .protocolError, "the receiver gave credit past the largest window")
            }
            session.wantsBulkTurn()
        case .transferDone:
            guard let transfer = outgoing[flow], transfer.peer == peer else { return stray(session, flow, StrayFlowRule.of(message)) }
            end(transfer, .completed, nil, nil)
        case .cancel(_, let reason, let text):
            if let transfer = outgoing[flow], transfer.peer == peer {
                end(transfer, reason == .declined ? .declined : (reason == .cancelled ? .cancelled : .failed), reason, "the receiver: \(text)")
            } else if let transfer = incoming[flow], transfer.peer == peer {
                if let root = try? root() { transfer.discardPartials(root: root) }
                end(transfer, reason == .cancelled ? .cancelled : .failed, reason, "the sender: \(text)")
            }
        case .block(_, let file, let block, let hash):
            guard let transfer = incoming[flow], transfer.peer == peer else { return stray(session, flow, StrayFlowRule.of(message)) }
            received(transfer, session) { _ in
                transfer.block(file: file, block: block, hash: hash).map { Result.failure($0) } ?? .success(())
            }
        case .fileEnd(_, let file, let hash):
            guard let transfer = incoming[flow], transfer.peer == peer else { return stray(session, flow, StrayFlowRule.of(message)) }
            received(transfer, session) { root in
                transfer.fileEnd(file: file, hash: hash, root: root, bootID: bootID).map { place($0, of: transfer) }
            }
        case .chunk, .streamOpen, .streamData, .streamEnd, .streamReset:
            break
        }
    }

    /// File bytes arrived (in place, valid only during the call): written,
    /// hashed, counted, and credit given back.
    func chunk(_ flow: FlowID, file: UInt32, offset: UInt64, bytes: UnsafeRawBufferPointer, from peer: UUID, on session: any BulkSession) {
        guard let transfer = incoming[flow], transfer.peer == peer else { return stray(session, flow, StrayFlowRule.chunk) }
        received(transfer, session) { root in
            transfer.chunk(file: file, offset: offset, bytes: bytes, root: root, bootID: bootID, now: clock.now()) { [unowned self] _ in
                emit(.transferProgress, info(transfer))
            }.map { credit in
                if let credit { session.sendBulk(.credit(flow, bytes: credit)) }
            }
        }
    }

    /// Applies `step` to an incoming transfer; a fault cancels it both sides.
    private func received(_ transfer: IncomingTransfer, _ session: any BulkSession, _ step: (FileDescriptor) -> Result<Void, TransferFault>) {
        guard !transfer.state.isFinished else { return }
        let root: FileDescriptor
        do { root = try self.root() } catch {
            return fail(transfer, session, TransferFault(writing: error, name: downloads))
        }
        if case .failure(let fault) = step(root) { fail(transfer, session, fault) }
    }

    func fail(_ transfer: IncomingTransfer, _ session: (any BulkSession)?, _ fault: TransferFault) {
        session?.sendBulk(.cancel(transfer.flow, reason: fault.reason, text: fault.text))
        if let root = try? root() { transfer.discardPartials(root: root) }
        end(transfer, .failed, fault.reason, fault.text)
    }

    /// A message for a flow this side does not know (``StrayFlowRule``).
    private func stray(_ session: any BulkSession, _ flow: FlowID, _ rule: StrayFlowRule = .cancel) {
        guard rule == .cancel else { return }
        session.sendBulk(.cancel(flow, reason: .protocolError, text: StrayFlowRule.cancelText))
    }

    /// The last step of a file, on the disk queue; then the next, or the end.
    private func place(_ file: IncomingFile, of transfer: IncomingTransfer) {
        guard let partial = file.partial else { return }
        let (name, size, mode, mtime) = (file.path.components.last ?? "file", file.offered.size, file.offered.mode, file.offered.mtime)
        disk.async {
            let outcome = Result { () throws(SystemError) in try partial.finish(name: name, size: size, mode: mode, mtime: mtime) }
            DispatchQueue.main.async {
                MainActor.assumeIsolated { self.placed(file, of: transfer, partial: partial, outcome: outcome) }
            }
        }
    }

    private func placed(_ file: IncomingFile, of transfer: IncomingTransfer, partial: PartialFile, outcome: Result<String, SystemError>) {
        file.partial = nil
        switch outcome {
        case .failure(let error):
            partial.discard()
            partial.close()
            file.finishing = false
            fail(transfer, session(transfer.peer), TransferFault(writing: error, name: file.path.description))
        case .success(let name):
            partial.close()
            transfer.placed(file, as: name, now: clock.now()) { [unowned self] _ in emit(.transferProgress, info(transfer)) }
            logger.info("transfer \(transfer.flow): \(file.savedAs ?? name) is in place")
            guard transfer.allPlaced, !transfer.state.isFinished else { return }
            session(transfer.peer)?.sendBulk(.transferDone(transfer.flow))
            forgetRecords(of: transfer)
            end(transfer, .completed, nil, nil)
        }
    }

    /// Removes a finished transfer's block records and its acceptance record.
    func forgetRecords(of transfer: IncomingTransfer) {
        guard let root = try? root() else { return }
        for file in transfer.accepted.values {
            guard let folder = try? DownloadFolder.folder(of: file.path, peerFolder: transfer.peerFolder, root: root, create: false) else { continue }
            try? folder.remove(PartialFile.names(flow: transfer.flow, index: file.index).record)
            folder.close()
        }
        acceptances.remove(transfer.flow)
    }

    // MARK: Ending

    func end(_ transfer: OutgoingTransfer, _ state: TransferState, _ reason: FlowEndReason?, _ detail: String?) {
        guard !transfer.state.isFinished else { return }
        transfer.state = state
        transfer.reason = reason
        transfer.detail = detail
        transfer.endedAt = clock.now()
        transfer.closeAll()
        outgoing[transfer.flow] = nil
        announceEnd(info(transfer), kept: info(transfer, files: .summary))
    }

    func end(_ transfer: IncomingTransfer, _ state: TransferState, _ reason: FlowEndReason?, _ detail: String?) {
        guard !transfer.state.isFinished else { return }
        transfer.state = state
        transfer.reason = reason
        transfer.detail = detail
        transfer.endedAt = clock.now()
        transfer.closePartials()
        if state != .completed, transfer.holdsRecord { acceptances.remove(transfer.flow) }
        incoming[transfer.flow] = nil
        announceEnd(info(transfer), kept: info(transfer, files: .summary))
    }

    /// An ended transfer: kept for `transfers` (`kept`, with its files when
    /// few), logged, and its last event sent.
    private func announceEnd(_ info: TransferInfo, kept: TransferInfo) {
        recent.append(kept)
        if recent.count > Self.recentKept { recent.removeFirst(recent.count - Self.recentKept) }
        let way = info.direction == .send ? "to" : "from"
        logger.info("transfer \(info.id) \(way) '\(info.name)': \(info.state.rawValue)\(info.detail.map { " (\($0))" } ?? "")")
        emit(info.state == .completed ? .transferCompleted : .transferFailed, info)
    }

    /// How long an interrupted incoming transfer is held in memory; after
    /// that, an offer repeated by the sender still resumes from the disk.
    static let interruptedKept: TimeInterval = 3600
    /// How long a client may take to send a manifest's parts, and a peer
    /// an offer's.
    static let manifestTimeout: TimeInterval = 60
    /// What the offer lists still arriving from one peer may cost in
    /// memory, all together (``IncomingTransfer/listCost``): 16 MiB.
    static let maxPendingListBytes = 16 << 20

    /// Clock tick: offers nobody decided in time are declined; manifests a
    /// client or a peer never finished are dropped; interrupted incoming
    /// transfers leave memory after an hour.
    public func tick(now: Date) {
        if sweptAt.map({ now.timeIntervalSince($0) >= Self.sweepInterval || now < $0 }) ?? true { sweep(now: now) }
        for transfer in pendingOffers.values where now.timeIntervalSince(transfer.startedAt) > Self.manifestTimeout {
            pendingOffers[transfer.flow] = nil
            session(transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .timedOut, text: "the offer's parts did not all come within \(Int(Self.manifestTimeout)) s"))
            logger.warning("transfer \(transfer.flow) from '\(transfer.peerName)': the offer's parts did not all come within \(Int(Self.manifestTimeout)) s; dropped")
        }
        for transfer in outgoing.values where !transfer.manifestComplete && now.timeIntervalSince(transfer.createdAt) > Self.manifestTimeout {
            end(transfer, .failed, .cancelled, "the client did not finish the list of files within \(Int(Self.manifestTimeout)) s")
        }
        for transfer in incoming.values where transfer.state == .interrupted {
            guard let since = transfer.interruptedAt, now.timeIntervalSince(since) > Self.interruptedKept else { continue }
            transfer.closePartials()
            incoming[transfer.flow] = nil
            logger.info("transfer \(transfer.flow) from '\(transfer.peerName)': interrupted for an hour; what arrived stays on disk for a resume")
        }
        for transfer in incoming.values where transfer.state == .offered {
            guard let expires = transfer.expires, now >= expires else { continue }
            session(transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .timedOut, text: "nobody decided on the offer in time"))
            end(transfer, .failed, .timedOut, "nobody decided on the offer within \(Int(offerTimeout)) s")
        }
    }

    /// Removes, on the disk queue, the files of transfers that stopped
    /// longer ago than the partial-file lifetime (issue 21, point 1.4);
    /// those of transfers held now stay whatever their age.
    func sweep(now: Date) {
        sweptAt = now
        let held = Set(incoming.keys).union(pendingOffers.keys)
        let (downloads, records, lifetime, logger) = (downloads, acceptances.path, Int64(partialLifetime), logger)
        let seconds = Int64(now.timeIntervalSince1970)
        disk.async {
            let outcome = LeftoverSweep.run(downloads: downloads, records: records, lifetime: lifetime, now: seconds, held: held)
            if outcome.files > 0 {
                logger.notice("swept \(outcome.files) files (\(outcome.bytes) bytes) of transfers that stopped over \(lifetime) s ago")
            }
        }
    }

    /// Closes every descriptor (shutdown).
    public func stop() {
        for transfer in outgoing.values { transfer.closeAll() }
        for transfer in incoming.values { transfer.closePartials() }
        rootFD?.close()
        rootFD = nil
    }

    var timeout: TimeInterval { offerTimeout }
    var downloadsPath: String { downloads }
    var acceptPolicy: AutoAcceptPolicy { policy }
    var log: Logger { logger }
    var now: Date { clock.now() }
}
