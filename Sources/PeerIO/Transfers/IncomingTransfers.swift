import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// The receiving side of the desk (issue 12; split by job in issue 21,
/// point 8): every ``IncomingTransfer`` and all that is written to one.
/// An offer is assembled, checked against what was accepted before
/// (``ResumeDecision``) and decided (``OfferDecision``, ``DiskBudget``);
/// its bytes are written, hashed and placed; what it leaves is swept.
@MainActor
final class IncomingTransfers {
    /// Offers from one peer at once, and from all peers.
    static let maxIncomingPerPeer = 8
    static let maxIncoming = 64
    /// How long an interrupted incoming transfer is held in memory; after
    /// that, an offer repeated by the sender still resumes from the disk.
    static let interruptedKept: TimeInterval = 3600
    /// Sweeps run once an hour (and at the first tick).
    static let sweepInterval: TimeInterval = 3600

    /// The transfers decided or being decided, by flow.
    var incoming: [FlowID: IncomingTransfer] = [:]
    /// Files whose end came and that wait to be placed, in order, and the
    /// batch being placed now (``place(_:of:)``); internal for
    /// `IncomingTransfers+Bytes.swift`.
    var placements: [Placement] = []
    var placing: [Placement] = []
    /// Offers whose manifest is still arriving.
    private let intake: OfferIntake
    /// Accepted offers, remembered in the state directory (never in a
    /// download folder, where a peer's bytes land).
    let acceptances: AcceptanceStore
    /// The boot that writes records now (``BlockRecord``).
    let bootID: [UInt8]
    /// The download directory and its disk queue.
    let root: DownloadRoot
    private let offerTimeout: TimeInterval
    /// How long the files of a stopped transfer are kept (``LeftoverSweep``).
    private let partialLifetime: TimeInterval
    /// When the last sweep started; nil before the first.
    private var sweptAt: Date?
    private let policy: AutoAcceptPolicy
    /// Sessions, rows, deciders and the event outlet, given at init.
    let surroundings: any TransferSurroundings
    /// Transfers that ended, for a while.
    let history: TransferHistory
    /// Where the desk logs.
    let logger: Logger
    private let clock: DaemonClock
    /// What the offer lists held may cost, per peer and in all.
    let listBudget = OfferListBudget()

    /// The receiving side: files land under `root`, acceptances are kept
    /// by `acceptances`, ends go to `history`.
    init(root: DownloadRoot, acceptances: AcceptanceStore, bootID: [UInt8], offerTimeout: TimeInterval, partialLifetime: TimeInterval,
         policy: AutoAcceptPolicy, surroundings: any TransferSurroundings, history: TransferHistory, logger: Logger, clock: DaemonClock) {
        self.root = root
        intake = OfferIntake(surroundings: surroundings, logger: logger)
        self.acceptances = acceptances
        self.bootID = bootID
        self.offerTimeout = offerTimeout
        self.partialLifetime = partialLifetime
        self.policy = policy
        self.surroundings = surroundings
        self.history = history
        self.logger = logger
        self.clock = clock
    }

    /// Whether `flow` is a transfer from `peer` received here.
    func owns(_ flow: FlowID, peer: UUID) -> Bool { incoming[flow]?.peer == peer }

    /// The daemon clock's now.
    var now: Date { clock.now() }
    /// Tells clients how `transfer` moved on.
    func progress(_ transfer: IncomingTransfer) { surroundings.transferEvent(.transferProgress, info(transfer)) }

    /// The session with `peer` ended: offers still arriving are dropped,
    /// offers nobody decided yet end (the sender offers them again on its
    /// next session, and they are decided then; issue 42, point 1), and
    /// active transfers wait for the sender to offer them again.
    func sessionDown(_ peer: UUID) {
        intake.sessionDown(peer)
        for transfer in incoming.values where transfer.peer == peer && transfer.state == .offered {
            end(transfer, .cancelled, .cancelled, "the session ended before anyone decided; the sender offers it again on its next session")
        }
        for transfer in incoming.values where transfer.peer == peer && transfer.state == .active {
            transfer.state = .interrupted
            transfer.interruptedAt = now
            transfer.closePartials()
            progress(transfer)
        }
    }

    // MARK: Offers

    /// A part of an offer from `peer`: assembled; once whole, a resume of
    /// what was accepted before, or a new offer decided afresh.
    func offerArrived(_ session: any BulkSession, peer: UUID, peerID: String, flow: FlowID, part: [OfferedFile], more: Bool,
                      totalFiles: UInt32, totalBytes: UInt64, app: AppName) {
        if let known = incoming[flow], known.peer != peer {
            return session.sendBulk(.cancel(flow, reason: .protocolError, text: "a transfer id already in use"))
        }
        let name = surroundings.row(peer)?.name ?? peerID
        // An offer repeated for a transfer held here is assembled afresh
        // too, and compared whole (below): it takes no new place.
        let room = { [incoming, intake] in
            let fromPeer = incoming.values.filter { $0.peer == peer }.count + intake.count(from: peer)
            return incoming[flow] != nil || fromPeer < Self.maxIncomingPerPeer && incoming.count + intake.count < Self.maxIncoming
        }
        // Every list held counts but the one this offer would replace.
        let others = incoming.values.filter { $0.flow != flow }
        let held = (peer: others.reduce(0) { $0 + ($1.peer == peer ? $1.listCost : 0) }, host: others.reduce(0) { $0 + $1.listCost })
        guard let transfer = intake.part(part, flow: flow, more: more, totalFiles: totalFiles, totalBytes: totalBytes, from: peer, peerID: peerID,
                                         name: name, app: app, on: session, room: room, held: held, budget: listBudget, now: now) else { return }
        let known = incoming[flow]
        transfer.hashKind = session.blockHash
        known?.hashKind = session.blockHash
        let decision = ResumeDecision.decide(manifest: transfer.manifestHash, peerID: peerID,
                                             held: known.map { .init(manifest: $0.manifestHash, state: $0.state) },
                                             record: acceptances.read(flow))
        switch decision {
        case .ignore:
            return
        case .reanswer:
            // The same offer again, on a new session: answered as before.
            guard let known, let root = try? root.open() else { return }
            send(known.reanswer(root: root, bootID: bootID, now: now), flow: flow, on: session)
            progress(known)
        case .resumeRecorded(let files, let replacing):
            if replacing, let known { giveWay(known, name: name) }
            incoming[flow] = transfer
            logger.info("transfer \(flow) from '\(name)': accepted before; resuming")
            accept(transfer, Set(files), session: session, resuming: true)
        case .decideAfresh(let replacing):
            if replacing, let known { giveWay(known, name: name) }
            incoming[flow] = transfer
            decide(transfer, session)
        }
    }

    /// Other files under an id held here (issue 21, point 1.2): the held
    /// transfer ends and its partial files go; what it was accepted for is
    /// not carried over to the new offer.
    private func giveWay(_ known: IncomingTransfer, name: String) {
        logger.warning("transfer \(known.flow) from '\(name)': offered again with other files; the earlier offer ends and this one is decided afresh")
        if let root = try? root.open() { known.discardPartials(root: root) }
        end(known, .failed, .protocolError, "the sender offered other files under the same transfer id")
    }

    /// The disk's room for offers now: free bytes and inodes, what the
    /// accepted transfers other than `transfer` will still write, and the reserve.
    private func budget(excluding transfer: IncomingTransfer, root: FileDescriptor) -> DiskBudget {
        let promised = incoming.values.filter { $0 !== transfer && ($0.state == .active || $0.state == .interrupted) }
            .reduce(DiskBudget.Cost.zero) { $0 + $1.remainingCost }
        // A disk that cannot be asked has no room.
        let space = (try? root.freeSpace()) ?? (bytes: 0, inodes: 0)
        return DiskBudget(freeBytes: space.bytes, freeInodes: space.inodes, promised: promised, reserve: DiskBudget.defaultReserve)
    }

    private func decide(_ transfer: IncomingTransfer, _ session: any BulkSession) {
        guard let check = transfer.check else { return }
        let root: FileDescriptor
        do { root = try self.root.open() } catch {
            return fail(transfer, session, TransferFault(writing: error, name: "the download directory"))
        }
        let decision = OfferDecision.decide(cost: transfer.cost(of: nil), count: check.acceptedCount, budget: budget(excluding: transfer, root: root),
                                            policy: policy, paired: surroundings.isPaired(transfer.peerID),
                                            quickSave: transfer.app.isDefault && surroundings.hasQuickSave(transfer.peerID),
                                            deciders: surroundings.deciders(transfer.app))
        logger.info("transfer \(transfer.flow): '\(transfer.peerName)' offers \(transfer.files.count) files, \(transfer.declaredBytes) bytes: \(decision)")
        switch decision {
        case .accept, .acceptQuickSave:
            transfer.acceptedBy = (decision == .accept ? TransferAcceptance.policy : .quickSave).rawValue
            accept(transfer, nil, session: session)
        case .ask, .wait:
            transfer.expires = now.addingTimeInterval(offerTimeout)
            surroundings.transferEvent(.transferOffered, info(transfer, files: .summary))
        case .refuseNoSpace(let shortfall):
            session.sendBulk(.cancel(transfer.flow, reason: .noSpace, text: shortfall.description))
            end(transfer, .failed, .noSpace, shortfall.description)
        case .refuseNothingAcceptable:
            send(transfer.accept(Set(), root: root, bootID: bootID, now: now), flow: transfer.flow, on: session)
            end(transfer, .declined, .declined, "no file of the offer has an acceptable name")
        }
    }

    /// Accepts `chosen` of `transfer` (every acceptable file when nil).
    /// The disk's room is checked again here, for an offer a client took
    /// later: other offers may have been accepted meanwhile. A resume from
    /// a record has its room already.
    private func accept(_ transfer: IncomingTransfer, _ chosen: Set<Int>?, session: any BulkSession, resuming: Bool = false) {
        guard let root = try? root.open() else { return }
        if !resuming, let shortfall = budget(excluding: transfer, root: root).shortfall(for: transfer.cost(of: chosen)) {
            session.sendBulk(.cancel(transfer.flow, reason: .noSpace, text: shortfall.description))
            return end(transfer, .failed, .noSpace, shortfall.description)
        }
        if transfer.placed == nil {
            transfer.placed = PlacedLog(folder: acceptances.path, header: .init(flow: transfer.flow, bootID: bootID, hash: transfer.hashKind))
        }
        let answers = transfer.accept(chosen, root: root, bootID: bootID, now: now)
        let accepted = answers.filter { $0.verdict == .accepted }.map { Int($0.file) }
        do {
            try acceptances.write(AcceptanceRecord(peerID: transfer.peerID, manifest: transfer.manifestHash, files: accepted), flow: transfer.flow)
        } catch {
            return fail(transfer, session, TransferFault(writing: error, name: "the acceptance record"))
        }
        transfer.holdsRecord = true
        send(answers, flow: transfer.flow, on: session)
        if accepted.isEmpty {
            return end(transfer, .declined, .declined, "no file was accepted")
        }
        progress(transfer)
        if transfer.allPlaced {
            session.sendBulk(.transferDone(transfer.flow))
            forgetRecords(of: transfer)
            end(transfer, .completed, nil, nil)
        }
    }

    private func send(_ answers: [FileAnswer], flow: FlowID, on session: any BulkSession) {
        let perPart = (WireCodec.maxPlaintext - 64) / 9
        var start = 0
        repeat {
            let end = min(answers.count, start + perPart)
            session.sendBulk(.answer(flow, more: end < answers.count, files: Array(answers[start..<end])))
            start = end
        } while start < answers.count
    }

    // MARK: Clients

    /// The transfers of `app`: a client sees and decides only its app's.
    private func of(_ app: AppName) -> [FlowID: IncomingTransfer] { incoming.filter { $0.value.app == app } }

    /// `acceptTransfer` from a client of `app`.
    func accept(_ id: String, files: [Int]?, app: AppName) -> Result<TransferResult, ControlError> {
        guard let transfer = TransferIDMatch.find(id, in: of(app)), transfer.state == .offered else {
            return .failure(ControlError(.notFound, "no offer \(id) waits for a decision"))
        }
        guard let session = surroundings.session(for: transfer.peer), session.isConnected else {
            return .failure(ControlError(.notConnected, "'\(transfer.peerName)' is not connected"))
        }
        if let files, let bad = files.first(where: { $0 < 0 || $0 >= transfer.files.count }) {
            return .failure(ControlError(.invalidParams, "the offer has no file \(bad)"))
        }
        transfer.acceptedBy = TransferAcceptance.client.rawValue
        accept(transfer, files.map(Set.init), session: session)
        return .success(TransferResult(transfer: info(transfer)))
    }

    /// `declineTransfer` from a client of `app`.
    func decline(_ id: String, app: AppName) -> Result<TransferResult, ControlError> {
        guard let transfer = TransferIDMatch.find(id, in: of(app)), transfer.state == .offered else {
            return .failure(ControlError(.notFound, "no offer \(id) waits for a decision"))
        }
        surroundings.session(for: transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .declined, text: "declined"))
        end(transfer, .declined, .declined, "declined here")
        return .success(TransferResult(transfer: info(transfer)))
    }

    /// `cancelTransfer` of a transfer received here, if `id` names one;
    /// its partial files go.
    func cancel(_ id: String, app: AppName) -> TransferResult? {
        guard let transfer = TransferIDMatch.find(id, in: of(app)) else { return nil }
        surroundings.session(for: transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .cancelled, text: "cancelled by the receiver"))
        if let root = try? root.open() { transfer.discardPartials(root: root) }
        end(transfer, .cancelled, .cancelled, "cancelled here")
        return TransferResult(transfer: info(transfer))
    }

    /// The transfers in progress, as clients see them.
    func live(files listing: TransferFileListing) -> [TransferInfo] { incoming.values.map { info($0, files: listing) } }

    // MARK: Time

    /// Clock tick: leftovers are swept (hourly); offers whose parts never
    /// all came, and offers nobody decided in time, are refused;
    /// interrupted transfers leave memory after an hour.
    func tick(now: Date) {
        if sweptAt.map({ now.timeIntervalSince($0) >= Self.sweepInterval || now < $0 }) ?? true { sweep(now: now) }
        intake.tick(now: now)
        for transfer in incoming.values where transfer.state == .interrupted {
            guard let since = transfer.interruptedAt, now.timeIntervalSince(since) > Self.interruptedKept else { continue }
            transfer.closePartials()
            incoming[transfer.flow] = nil
            logger.info("transfer \(transfer.flow) from '\(transfer.peerName)': interrupted for an hour; what arrived stays on disk for a resume")
        }
        for transfer in incoming.values where transfer.state == .offered {
            guard let expires = transfer.expires, now >= expires else { continue }
            surroundings.session(for: transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .timedOut, text: "nobody decided on the offer in time"))
            end(transfer, .failed, .timedOut, "nobody decided on the offer within \(Int(offerTimeout)) s")
        }
    }

    /// Removes, on the disk queue, the files of transfers that stopped
    /// longer ago than the partial-file lifetime (issue 21, point 1.4);
    /// those of transfers held now stay whatever their age.
    func sweep(now: Date) {
        sweptAt = now
        let held = Set(incoming.keys).union(intake.flows)
        let (downloads, records, lifetime, logger) = (root.path, acceptances.path, Int64(partialLifetime), logger)
        let seconds = Int64(now.timeIntervalSince1970)
        root.disk.async {
            let outcome = LeftoverSweep.run(downloads: downloads, records: records, lifetime: lifetime, now: seconds, held: held)
            if outcome.files > 0 {
                logger.notice("swept \(outcome.files) files (\(outcome.bytes) bytes) of transfers that stopped over \(lifetime) s ago")
            }
        }
    }

    /// Closes every partial file (shutdown).
    func stop() {
        for transfer in incoming.values { transfer.closePartials() }
    }

    /// What clients see of `transfer`.
    func info(_ transfer: IncomingTransfer, files listing: TransferFileListing = .none) -> TransferInfo {
        transfer.info(downloads: root.path, files: listing)
    }
}
