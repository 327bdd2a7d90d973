import Dispatch
import FoundationEssentials
import PeerCore
import PeerSystem
import PeerProtocol

/// The sending peer's messages and bytes for the transfers received here:
/// blocks checked and files placed through the writer and the disk queue
/// (``PartialFile``), faults that end a transfer both sides, and the end
/// of a transfer. Apart from the offers and the clients' requests
/// (IncomingTransfers.swift), which decide what is received.
extension IncomingTransfers {
    // MARK: The sender's messages and bytes

    /// `block`, `fileEnd` or `cancel` from the sender, for a transfer
    /// received here (``owns(_:peer:)``).
    func received(_ message: BulkMessage, on session: any BulkSession) {
        guard let transfer = incoming[message.flow] else { return }
        switch message {
        case .block(_, let file, let block, let hash):
            let name = transfer.accepted[Int(file)]?.path.description ?? "file \(file)"
            step(transfer, session) { _ in
                transfer.block(file: file, block: block, hash: hash, checked: { [weak self, weak transfer] check in
                    guard let self, let transfer, !transfer.state.isFinished else { return }
                    switch check {
                    case .recorded: break
                    case .failed(let error): self.writeFailed(transfer, error, name: name)
                    case .mismatch:
                        self.fail(transfer, self.surroundings.session(for: transfer.peer),
                                  TransferFault(.verifyFailed, "block \(block) of \(name) does not match its hash"))
                    }
                }).map { Result.failure($0) } ?? .success(())
            }
        case .fileEnd(_, let file, let hash):
            // The file's blocks are checked on the writer: its end is taken
            // once they are, so a block that did not match fails the
            // transfer first and the file is never placed.
            PartialFile.afterWrites { [weak self, weak transfer] in
                guard let self, let transfer, !transfer.state.isFinished else { return }
                self.step(transfer, session) { root in
                    transfer.fileEnd(file: file, hash: hash, root: root, bootID: self.bootID).map { self.place($0, of: transfer) }
                }
            }
        case .cancel(_, let reason, let text):
            if let root = try? root.open() { transfer.discardPartials(root: root) }
            end(transfer, reason == .cancelled ? .cancelled : .failed, reason, "the sender: \(text)")
        default:
            break
        }
    }

    /// File bytes arrived (in place, valid only during the call): written,
    /// hashed, counted, and credit given back.
    func chunk(_ flow: FlowID, file: UInt32, offset: UInt64, bytes: UnsafeRawBufferPointer, on session: any BulkSession) {
        guard let transfer = incoming[flow] else { return }
        let (epoch, count) = (transfer.windowEpoch, bytes.count)
        let name = transfer.accepted[Int(file)]?.path.description ?? "file \(file)"
        step(transfer, session) { root in
            let fault = transfer.chunk(file: file, offset: offset, bytes: bytes, onLane: session.bulkOnLane, root: root, bootID: bootID, now: now,
                                       report: { [unowned self] _ in progress(transfer) },
                                       written: { [weak self, weak transfer] failure in
                guard let self, let transfer else { return }
                if let failure { return self.writeFailed(transfer, failure, name: name) }
                // Credit goes back once the bytes are on disk, on the session up now.
                if let credit = transfer.written(count, epoch: epoch, now: self.now) {
                    self.surroundings.session(for: transfer.peer)?.sendBulk(.credit(flow, bytes: credit))
                }
            })
            return fault.map { .failure($0) } ?? .success(())
        }
    }

    /// A write queued off the main actor failed: the transfer ends, both sides.
    func writeFailed(_ transfer: IncomingTransfer, _ error: SystemError, name: String) {
        guard !transfer.state.isFinished else { return }
        fail(transfer, surroundings.session(for: transfer.peer), TransferFault(writing: error, name: name))
    }

    /// Applies `step` to an incoming transfer; a fault cancels it both sides.
    func step(_ transfer: IncomingTransfer, _ session: any BulkSession, _ step: (FileDescriptor) -> Result<Void, TransferFault>) {
        guard !transfer.state.isFinished else { return }
        let root: FileDescriptor
        do { root = try self.root.open() } catch {
            return fail(transfer, session, TransferFault(writing: error, name: self.root.path))
        }
        if case .failure(let fault) = step(root) { fail(transfer, session, fault) }
    }

    func fail(_ transfer: IncomingTransfer, _ session: (any BulkSession)?, _ fault: TransferFault) {
        session?.sendBulk(.cancel(transfer.flow, reason: fault.reason, text: fault.text))
        if let root = try? root.open() { transfer.discardPartials(root: root) }
        end(transfer, .failed, fault.reason, fault.text)
    }

    /// The last step of a file, on the disk queue; then the next, or the end.
    func place(_ file: IncomingFile, of transfer: IncomingTransfer) {
        guard let partial = file.partial else { return }
        let step = PartialFile.Finishing(partial: partial, name: file.path.components.last ?? "file", size: file.offered.size,
                                         mode: file.offered.mode, mtime: file.offered.mtime)
        placements.append(Placement(file: file, transfer: transfer, step: step))
        if placing.isEmpty { placeNextBatch() }
    }

    /// Places the files waiting, up to ``Placement/batch`` at once, on the
    /// disk queue (``PartialFile/finishAll(_:)``): the files whose ends come
    /// while one batch is flushed go together in the next, so a folder of
    /// small files pays a flush a batch, not three a file.
    private func placeNextBatch() {
        guard placing.isEmpty, !placements.isEmpty else { return }
        placing = Array(placements.prefix(Placement.batch))
        placements.removeFirst(placing.count)
        let steps = placing.map(\.step)
        root.disk.async {
            let outcomes = PartialFile.finishAll(steps)
            DispatchQueue.main.async {
                MainActor.assumeIsolated {
                    let done = self.placing
                    self.placing = []
                    for (placement, outcome) in zip(done, outcomes) {
                        self.placed(placement.file, of: placement.transfer, partial: placement.step.partial, outcome: outcome)
                    }
                    self.placeNextBatch()
                }
            }
        }
    }

    func placed(_ file: IncomingFile, of transfer: IncomingTransfer, partial: PartialFile, outcome: Result<String, SystemError>) {
        file.partial = nil
        switch outcome {
        case .failure(let error):
            partial.discard()
            partial.close()
            file.finishing = false
            // A block that did not match has failed the transfer already.
            guard !transfer.state.isFinished else { return }
            fail(transfer, surroundings.session(for: transfer.peer), TransferFault(writing: error, name: file.path.description))
        case .success(let name):
            partial.close()
            transfer.placed(file, as: name, now: now) { [unowned self] _ in progress(transfer) }
            logger.info("transfer \(transfer.flow): \(file.savedAs ?? name) is in place")
            guard transfer.allPlaced, !transfer.state.isFinished else { return }
            surroundings.session(for: transfer.peer)?.sendBulk(.transferDone(transfer.flow))
            forgetRecords(of: transfer)
            end(transfer, .completed, nil, nil)
        }
    }

    /// Removes a finished transfer's block records, its record of files in
    /// place and its acceptance record.
    func forgetRecords(of transfer: IncomingTransfer) {
        guard let root = try? root.open() else { return }
        for file in transfer.accepted.values {
            guard let folder = try? DownloadFolder.folder(of: file.path, peerFolder: transfer.peerFolder, root: root, create: false) else { continue }
            try? folder.remove(PartialFile.names(flow: transfer.flow, index: file.index).record)
            folder.close()
        }
        transfer.placed?.remove()
        acceptances.remove(transfer.flow)
    }

    func end(_ transfer: IncomingTransfer, _ state: TransferState, _ reason: FlowEndReason?, _ detail: String?) {
        guard !transfer.state.isFinished else { return }
        transfer.state = state
        transfer.reason = reason
        transfer.detail = detail
        transfer.endedAt = now
        transfer.closePartials()
        if state != .completed, transfer.holdsRecord {
            transfer.placed?.remove()
            acceptances.remove(transfer.flow)
        }
        incoming[transfer.flow] = nil
        history.ended(info(transfer), kept: info(transfer, files: .summary))
    }
}
