import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// The offers that arrive, the clients' requests, and what clients see.
extension TransferDesk {
    func offerArrived(_ session: any BulkSession, peer: UUID, peerID: String, flow: FlowID, part: [OfferedFile], more: Bool,
                      totalFiles: UInt32, totalBytes: UInt64) {
        if let known = incoming[flow], known.peer != peer {
            return session.sendBulk(.cancel(flow, reason: .protocolError, text: "a transfer id already in use"))
        }
        let row = row(peer)
        let name = row?.name ?? peerID
        let transfer: IncomingTransfer
        if let pending = pendingOffers[flow] {
            guard pending.peer == peer else { return session.sendBulk(.cancel(flow, reason: .protocolError, text: "a transfer id already in use")) }
            transfer = pending
        } else {
            // An offer repeated for a transfer held here is assembled
            // afresh too, and compared whole (below): it takes no new place.
            let fromPeer = incoming.values.filter { $0.peer == peer }.count + pendingOffers.values.filter { $0.peer == peer }.count
            guard incoming[flow] != nil || fromPeer < Self.maxIncomingPerPeer && incoming.count + pendingOffers.count < Self.maxIncoming else {
                return session.sendBulk(.cancel(flow, reason: .busy, text: "too many transfers at once; try again later"))
            }
            transfer = IncomingTransfer(flow: flow, peer: peer, peerID: peerID, peerName: name,
                                        peerFolder: DownloadFolder.peerFolderName(name: name, peerID: peerID), now: now)
            pendingOffers[flow] = transfer
        }
        // The lists still arriving from one peer are bounded by what they
        // cost, not by their count alone (issue 21, point 1.6).
        let listing = pendingOffers.values.filter { $0.peer == peer }.reduce(0) { $0 + $1.listCost }
            + part.reduce(0) { $0 + $1.name.count + 64 }
        guard listing <= Self.maxPendingListBytes else {
            pendingOffers[flow] = nil
            log.warning("transfer \(flow) from '\(name)': the offers still arriving from this peer pass \(Self.maxPendingListBytes) bytes; refused")
            return session.sendBulk(.cancel(flow, reason: .busy, text: "the offer lists still arriving from you pass \(Self.maxPendingListBytes) bytes; finish one first"))
        }
        if let error = transfer.offerPart(part, more: more, totalFiles: totalFiles, totalBytes: totalBytes) {
            pendingOffers[flow] = nil
            session.sendBulk(.cancel(flow, reason: .protocolError, text: error))
            return log.warning("transfer \(flow) from '\(name)': \(error)")
        }
        guard transfer.manifestComplete else { return }
        pendingOffers[flow] = nil
        let known = incoming[flow]
        let decision = ResumeDecision.decide(manifest: transfer.manifestHash, peerID: peerID,
                                             held: known.map { .init(manifest: $0.manifestHash, state: $0.state) },
                                             record: acceptances.read(flow))
        switch decision {
        case .ignore:
            return
        case .reanswer:
            // The same offer again, on a new session: answered as before.
            guard let known, let root = try? root() else { return }
            send(known.reanswer(root: root, bootID: bootID, now: now), flow: flow, on: session)
            emit(.transferProgress, info(known))
        case .resumeRecorded(let files, let replacing):
            if replacing, let known { giveWay(known, name: name) }
            incoming[flow] = transfer
            log.info("transfer \(flow) from '\(name)': accepted before; resuming")
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
        log.warning("transfer \(known.flow) from '\(name)': offered again with other files; the earlier offer ends and this one is decided afresh")
        if let root = try? root() { known.discardPartials(root: root) }
        end(known, .failed, .protocolError, "the sender offered other files under the same transfer id")
    }

    /// The disk's room for offers now: free bytes and inodes, what the
    /// accepted transfers other than `transfer` will still write, and the reserve.
    func budget(excluding transfer: IncomingTransfer, root: FileDescriptor) -> DiskBudget {
        let promised = incoming.values.filter { $0 !== transfer && ($0.state == .active || $0.state == .interrupted) }
            .reduce(DiskBudget.Cost.zero) { $0 + $1.remainingCost }
        // A disk that cannot be asked has no room.
        let space = (try? root.freeSpace()) ?? (bytes: 0, inodes: 0)
        return DiskBudget(freeBytes: space.bytes, freeInodes: space.inodes, promised: promised, reserve: DiskBudget.defaultReserve)
    }

    private func decide(_ transfer: IncomingTransfer, _ session: any BulkSession) {
        guard let check = transfer.check else { return }
        let root: FileDescriptor
        do { root = try self.root() } catch {
            return fail(transfer, session, TransferFault(writing: error, name: "the download directory"))
        }
        let decision = OfferDecision.decide(cost: transfer.cost(of: nil), count: check.acceptedCount, budget: budget(excluding: transfer, root: root),
                                            policy: acceptPolicy, paired: isPaired(transfer.peerID), deciders: deciders())
        log.info("transfer \(transfer.flow): '\(transfer.peerName)' offers \(transfer.files.count) files, \(transfer.declaredBytes) bytes: \(decision)")
        switch decision {
        case .accept:
            accept(transfer, nil, session: session)
        case .ask, .wait:
            transfer.expires = now.addingTimeInterval(timeout)
            emit(.transferOffered, info(transfer, files: .summary))
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
        guard let root = try? root() else { return }
        if !resuming, let shortfall = budget(excluding: transfer, root: root).shortfall(for: transfer.cost(of: chosen)) {
            session.sendBulk(.cancel(transfer.flow, reason: .noSpace, text: shortfall.description))
            return end(transfer, .failed, .noSpace, shortfall.description)
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
        emit(.transferProgress, info(transfer))
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

    /// `sendFile`: a part of a manifest with its descriptors.
    public func sendFile(to peer: PeerSnapshot, transfer id: String?, entries: [SendFileEntry], descriptors: [FileDescriptor],
                         more: Bool) -> Result<TransferResult, ControlError> {
        guard let peerID = peer.peerId else { return .failure(ControlError(.invalidParams, "'\(peer.name)' advertises no peer id")) }
        for (entry, descriptor) in zip(entries, descriptors) {
            guard case .success = TransferPath.check(entry.name) else {
                return .failure(ControlError(.invalidParams, "'\(entry.name)' is not a name a receiver accepts"))
            }
            guard let info = try? descriptor.status(), info.st_mode & S_IFMT == S_IFREG else {
                return .failure(ControlError(.invalidParams, "'\(entry.name)' is not a regular file"))
            }
            guard Int64(info.st_size) == entry.size, Int64(info.st_mtim.tv_sec) == entry.mtime else {
                return .failure(ControlError(.invalidParams, "'\(entry.name)' does not match its descriptor's size and time"))
            }
        }
        let transfer: OutgoingTransfer
        if let id, let flow = FlowID(hex: id), let known = outgoing[flow] {
            guard known.peer == peer.id, !known.manifestComplete else {
                return .failure(ControlError(.invalidParams, "transfer \(id) is not taking more files"))
            }
            transfer = known
        } else {
            let flow: FlowID
            if let id {
                guard let given = FlowID(hex: id) else { return .failure(ControlError(.invalidParams, "a transfer id is 32 hexadecimal digits")) }
                flow = given
            } else {
                flow = FlowID(bytes: Sodium.randomBytes(FlowID.length))!
            }
            transfer = OutgoingTransfer(flow: flow, peer: peer.id, peerID: peerID, peerName: peer.name, now: now)
            outgoing[flow] = transfer
        }
        let files = entries.map { OfferedFile(name: Array($0.name.utf8), size: $0.size, mode: $0.mode & 0o777, mtime: $0.mtime) }
        transfer.add(files, descriptors: descriptors, last: !more)
        guard transfer.files.count <= OfferCheck.maxFiles else {
            end(transfer, .failed, .busy, "more than \(OfferCheck.maxFiles) files")
            return .failure(ControlError(.invalidParams, "a transfer holds at most \(OfferCheck.maxFiles) files"))
        }
        if !more {
            if let session = session(peer.id), session.isConnected {
                sessionUp(session)
            } else {
                transfer.state = .interrupted
            }
        }
        return .success(TransferResult(transfer: info(transfer)))
    }

    /// `acceptTransfer`.
    public func accept(_ id: String, files: [Int]?) -> Result<TransferResult, ControlError> {
        guard let transfer = find(id, in: incoming), transfer.state == .offered else {
            return .failure(ControlError(.notFound, "no offer \(id) waits for a decision"))
        }
        guard let session = session(transfer.peer), session.isConnected else {
            return .failure(ControlError(.notConnected, "'\(transfer.peerName)' is not connected"))
        }
        if let files, let bad = files.first(where: { $0 < 0 || $0 >= transfer.files.count }) {
            return .failure(ControlError(.invalidParams, "the offer has no file \(bad)"))
        }
        accept(transfer, files.map(Set.init), session: session)
        return .success(TransferResult(transfer: info(transfer)))
    }

    /// `declineTransfer`.
    public func decline(_ id: String) -> Result<TransferResult, ControlError> {
        guard let transfer = find(id, in: incoming), transfer.state == .offered else {
            return .failure(ControlError(.notFound, "no offer \(id) waits for a decision"))
        }
        session(transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .declined, text: "declined"))
        end(transfer, .declined, .declined, "declined here")
        return .success(TransferResult(transfer: info(transfer)))
    }

    /// `cancelTransfer`: either direction; partial files go.
    public func cancel(_ id: String) -> Result<TransferResult, ControlError> {
        if let transfer = find(id, in: outgoing) {
            session(transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .cancelled, text: "cancelled by the sender"))
            end(transfer, .cancelled, .cancelled, "cancelled here")
            return .success(TransferResult(transfer: info(transfer)))
        }
        if let transfer = find(id, in: incoming) {
            session(transfer.peer)?.sendBulk(.cancel(transfer.flow, reason: .cancelled, text: "cancelled by the receiver"))
            if let root = try? root() { transfer.discardPartials(root: root) }
            end(transfer, .cancelled, .cancelled, "cancelled here")
            return .success(TransferResult(transfer: info(transfer)))
        }
        return .failure(ControlError(.notFound, "no transfer \(id) is in progress"))
    }

    /// `transfers`: in progress first, then recent ones, newest first; one
    /// with a page of its files (`offset`, `max`) when `id` is given.
    public func list(_ id: String?, offset: Int? = nil, max: Int? = nil) -> Result<TransfersResult, ControlError> {
        let listing: TransferFileListing = id == nil ? .none : .page(offset: offset, max: max)
        let live = outgoing.values.map { info($0, files: listing) } + incoming.values.map { info($0, files: listing) }
        let all = live + recent.reversed().map { ended in
            var brief = ended
            if id == nil { (brief.files, brief.filesOmitted) = (nil, nil) }
            return brief
        }
        guard let id else { return .success(TransfersResult(transfers: all)) }
        let found = all.filter { $0.id.hasPrefix(id.lowercased()) }
        guard !found.isEmpty else { return .failure(ControlError(.notFound, "no transfer \(id)")) }
        return .success(TransfersResult(transfers: found))
    }

    private func find<T>(_ id: String, in table: [FlowID: T]) -> T? {
        let matches = table.filter { $0.key.description.hasPrefix(id.lowercased()) && !id.isEmpty }
        return matches.count == 1 ? matches.first?.value : nil
    }

    func info(_ transfer: OutgoingTransfer, files listing: TransferFileListing = .none) -> TransferInfo {
        let report = transfer.meter.report
        let accepted = transfer.accepted
        var info = TransferInfo(id: transfer.flow.description, direction: .send, peer: transfer.peer, name: transfer.peerName, state: transfer.state,
                            totalFiles: transfer.files.count, totalBytes: transfer.totalBytes, acceptedFiles: accepted.files,
                            acceptedBytes: accepted.bytes, filesDone: report.files, bytes: report.bytes, rate: report.rate, eta: report.eta,
                            reason: transfer.reason, detail: transfer.detail,
                            files: nil)
        if let range = listing.range(count: transfer.files.count, nameSize: { transfer.files[$0].name.count }) {
            info.files = range.map { index in
                let file = transfer.files[index]
                return TransferFileInfo(index: index, name: String(decoding: file.name, as: UTF8.self), size: file.size,
                                        verdict: index < transfer.verdicts.count ? (transfer.verdicts[index]?.word ?? "pending") : "pending")
            }
            info.filesOmitted = transfer.files.count - range.count
        }
        info.wireBytes = transfer.wireBytes
        return info
    }

    func info(_ transfer: IncomingTransfer, files listing: TransferFileListing = .none) -> TransferInfo {
        let report = transfer.meter.report
        var info = TransferInfo(id: transfer.flow.description, direction: .receive, peer: transfer.peer, name: transfer.peerName, state: transfer.state,
                            totalFiles: transfer.files.count, totalBytes: transfer.declaredBytes, acceptedFiles: transfer.accepted.count,
                            acceptedBytes: report.totalBytes, filesDone: report.files, bytes: report.bytes, rate: report.rate, eta: report.eta,
                            reason: transfer.reason, detail: transfer.detail, directory: downloadsPath + "/" + transfer.peerFolder,
                            expires: transfer.expires)
        if let range = listing.range(count: transfer.files.count, nameSize: { transfer.files[$0].name.count }) {
            info.files = transfer.fileInfos(range)
            info.filesOmitted = transfer.files.count - range.count
        }
        info.wireBytes = transfer.wireBytes
        info.resentBytes = transfer.resentBytes
        return info
    }
}
