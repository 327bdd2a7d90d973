import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem

/// The offers that arrive, the clients' requests, and what clients see.
extension TransferDesk {
    func offerArrived(_ session: PeerSession, peer: UUID, peerID: String, flow: FlowID, part: [OfferedFile], more: Bool,
                      totalFiles: UInt32, totalBytes: UInt64) {
        if let known = incoming[flow] {
            guard known.peer == peer else { return session.sendBulk(.cancel(flow, reason: .protocolError, text: "a transfer id already in use")) }
            // The same offer again, on a new session: answered as before, once whole.
            guard !more, known.manifestComplete, known.state == .interrupted || known.state == .active, let root = try? root() else { return }
            let answers = known.reanswer(root: root, bootID: bootID, now: now)
            send(answers, flow: flow, on: session)
            emit(.transferProgress, info(known))
            return
        }
        let row = row(peer)
        let name = row?.name ?? peerID
        let transfer: IncomingTransfer
        if let pending = pendingOffers[flow] {
            transfer = pending
        } else {
            let fromPeer = incoming.values.filter { $0.peer == peer }.count + pendingOffers.values.filter { $0.peer == peer }.count
            guard fromPeer < Self.maxIncomingPerPeer, incoming.count + pendingOffers.count < Self.maxIncoming else {
                return session.sendBulk(.cancel(flow, reason: .busy, text: "too many transfers at once; try again later"))
            }
            transfer = IncomingTransfer(flow: flow, peer: peer, peerID: peerID, peerName: name,
                                        peerFolder: DownloadFolder.peerFolderName(name: name, peerID: peerID), now: now)
            pendingOffers[flow] = transfer
        }
        if let error = transfer.offerPart(part, more: more, totalFiles: totalFiles, totalBytes: totalBytes) {
            pendingOffers[flow] = nil
            session.sendBulk(.cancel(flow, reason: .protocolError, text: error))
            return log.warning("transfer \(flow) from '\(name)': \(error)")
        }
        guard transfer.manifestComplete else { return }
        pendingOffers[flow] = nil
        incoming[flow] = transfer
        decide(transfer, session)
    }

    private func decide(_ transfer: IncomingTransfer, _ session: PeerSession) {
        guard let check = transfer.check else { return }
        let root: FileDescriptor
        do { root = try self.root() } catch {
            return fail(transfer, session, TransferFault(writing: error, name: "the download directory"))
        }
        if let noted = AcceptanceNote.read(flow: transfer.flow, peerFolder: transfer.peerFolder, root: root) {
            log.info("transfer \(transfer.flow) from '\(transfer.peerName)': accepted before; resuming")
            return accept(transfer, noted, session: session)
        }
        let free = (try? root.freeBytes()) ?? 0
        let decision = OfferDecision.decide(bytes: check.acceptedBytes, count: check.acceptedCount, free: free, reserve: Self.reserve,
                                            policy: acceptPolicy, paired: isPaired(transfer.peerID), deciders: deciders())
        log.info("transfer \(transfer.flow): '\(transfer.peerName)' offers \(transfer.files.count) files, \(transfer.declaredBytes) bytes: \(decision)")
        switch decision {
        case .accept:
            accept(transfer, nil, session: session)
        case .ask, .wait:
            transfer.expires = now.addingTimeInterval(timeout)
            emit(.transferOffered, info(transfer, files: true))
        case .refuseNoSpace(let needed, let free):
            let text = "the offer needs \(needed) bytes with the reserve; \(free) are free"
            session.sendBulk(.cancel(transfer.flow, reason: .noSpace, text: text))
            end(transfer, .failed, .noSpace, text)
        case .refuseNothingAcceptable:
            send(transfer.accept(Set(), root: root, bootID: bootID, now: now), flow: transfer.flow, on: session)
            end(transfer, .declined, .declined, "no file of the offer has an acceptable name")
        }
    }

    /// Bytes kept free on the download disk beyond an offer.
    static var reserve: Int64 { 64 << 20 }

    private func accept(_ transfer: IncomingTransfer, _ chosen: Set<Int>?, session: PeerSession) {
        guard let root = try? root() else { return }
        let answers = transfer.accept(chosen, root: root, bootID: bootID, now: now)
        let accepted = answers.filter { $0.verdict == .accepted }.map { Int($0.file) }
        do { try AcceptanceNote.write(flow: transfer.flow, files: accepted, peerFolder: transfer.peerFolder, root: root) } catch {
            return fail(transfer, session, TransferFault(writing: error, name: "the acceptance note"))
        }
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

    private func send(_ answers: [FileAnswer], flow: FlowID, on session: PeerSession) {
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
    /// with its files when `id` is given.
    public func list(_ id: String?) -> Result<TransfersResult, ControlError> {
        let live = outgoing.values.map { info($0, files: id != nil) } + incoming.values.map { info($0, files: id != nil) }
        let all = live + recent.reversed().map { ended in
            var brief = ended
            if id == nil { brief.files = nil }
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

    func info(_ transfer: OutgoingTransfer, files: Bool = false) -> TransferInfo {
        let report = transfer.meter.report
        let accepted = transfer.accepted
        var info = TransferInfo(id: transfer.flow.description, direction: .send, peer: transfer.peer, name: transfer.peerName, state: transfer.state,
                            totalFiles: transfer.files.count, totalBytes: transfer.totalBytes, acceptedFiles: accepted.files,
                            acceptedBytes: accepted.bytes, filesDone: report.files, bytes: report.bytes, rate: report.rate, eta: report.eta,
                            reason: transfer.reason, detail: transfer.detail,
                            files: files ? transfer.files.enumerated().map { index, file in
                                TransferFileInfo(index: index, name: String(decoding: file.name, as: UTF8.self), size: file.size,
                                                 verdict: index < transfer.verdicts.count ? (transfer.verdicts[index]?.word ?? "pending") : "pending")
                            } : nil)
        info.wireBytes = transfer.wireBytes
        return info
    }

    func info(_ transfer: IncomingTransfer, files: Bool = false) -> TransferInfo {
        let report = transfer.meter.report
        var info = TransferInfo(id: transfer.flow.description, direction: .receive, peer: transfer.peer, name: transfer.peerName, state: transfer.state,
                            totalFiles: transfer.files.count, totalBytes: transfer.declaredBytes, acceptedFiles: transfer.accepted.count,
                            acceptedBytes: report.totalBytes, filesDone: report.files, bytes: report.bytes, rate: report.rate, eta: report.eta,
                            reason: transfer.reason, detail: transfer.detail, directory: downloadsPath + "/" + transfer.peerFolder,
                            expires: transfer.expires, files: files ? transfer.fileInfos : nil)
        info.wireBytes = transfer.wireBytes
        info.resentBytes = transfer.resentBytes
        return info
    }
}
