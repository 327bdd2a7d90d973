import Dispatch
import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// One transfer this host receives (issue 12): the offer as it arrives in
/// parts, the check of every name, the decision, then the accepted files
/// written block by block, each block hashed and recorded, each file
/// renamed into place when its hash of block hashes matches.
@MainActor
final class IncomingTransfer {
    let flow: FlowID
    let peer: UUID
    let peerID: String
    var peerName: String
    /// The folder under the download directory that this peer's files go
    /// to: one component, or `.apps/APP/` and one for an app's.
    let peerFolder: String
    /// The app whose files these are (issue 23, point 4).
    let app: AppName
    /// The hash of its blocks and files: the session's that (last)
    /// brought the offer (docs/protocol.md §8; set before it is answered).
    var hashKind = BlockHashKind.blake2b
    /// The offer as its parts arrive (pure: ``OfferAssembly``).
    private var assembly = OfferAssembly()
    /// The offer's files, in order.
    var files: OfferList { assembly.files }
    /// `total_bytes` as the offer declared it.
    var declaredBytes: Int64 { assembly.declaredBytes }
    /// Whether the whole list has come and adds up.
    var manifestComplete: Bool { assembly.isComplete }
    /// Per file: whether it is refused, and why (once the manifest is whole).
    private(set) var check: OfferCheck.Verdict?
    /// BLAKE2b of ``OfferManifest/canonicalBytes(_:)``, hex, once the
    /// manifest is whole: what an acceptance is bound to.
    private(set) var manifestHash = ""
    /// Whether the acceptance record for its id is this transfer's (it was
    /// accepted): only then does its end remove the record. Another offer
    /// under the same id must not take away what was accepted before.
    var holdsRecord = false
    /// Where its files of one block at most are marked in place
    /// (``PlacedRecord``), set when it is accepted.
    var placed: PlacedLog?
    /// Folders this transfer made (from the download directory), removed
    /// again when it fails and they are empty.
    private(set) var madeFolders: [[String]] = []
    var state: TransferState = .offered
    var reason: FlowEndReason?
    var detail: String?
    var expires: Date?
    /// Who accepted it (TRANSFER's `acceptedBy`: `client`, `policy` or
    /// `quickSave`), once accepted.
    var acceptedBy: String?
    var endedAt: Date?
    /// When the session went away, for an interrupted transfer.
    var interruptedAt: Date?
    /// The accepted files, by number.
    private(set) var accepted: [Int: IncomingFile] = [:]
    /// Files the user left out.
    private(set) var declined = Set<Int>()
    private var window = ReceiveWindow(limit: ReceiveWindow.fileLimit)
    /// Which window bytes were received under: a resume starts a new
    /// window, and writes queued under the old one give no credit in it.
    private(set) var windowEpoch = 0
    /// Chunk bytes received, every session counted.
    private(set) var wireBytes: Int64 = 0
    /// Bytes received past the verified blocks before a resume.
    private(set) var resentBytes: Int64 = 0
    private(set) var meter: ProgressMeter

    /// When its first part arrived: a manifest not whole a minute later is dropped.
    let startedAt: Date

    /// What the offer's list costs in memory (``OfferAssembly/listCost``).
    var listCost: Int { assembly.listCost }

    init(flow: FlowID, peer: UUID, peerID: String, peerName: String, peerFolder: String, app: AppName = .none, now: Date) {
        startedAt = now
        self.app = app
        self.flow = flow
        self.peer = peer
        self.peerID = peerID
        self.peerName = peerName
        self.peerFolder = peerFolder
        meter = ProgressMeter(totalBytes: 0, totalFiles: 0, now: now)
    }

    /// A part of the offer; the error when it breaks §8's rules or limits.
    func offerPart(_ part: [OfferedFile], more: Bool, totalFiles: UInt32, totalBytes: UInt64) -> String? {
        switch assembly.add(part, more: more, totalFiles: totalFiles, totalBytes: totalBytes) {
        case .needMore: return nil
        case .refused(let words): return words
        case .complete: break
        }
        check = OfferCheck.check(files)
        // An app's acceptance is bound to the app too: the same files
        // offered for another app (or the default) are a new offer.
        let appBytes = app.isDefault ? [] : [0] + Array(app.text.utf8)
        let hash = Blake2b()
        OfferManifest.canonicalChunks(files) { hash.update($0) }
        hash.update(appBytes)
        manifestHash = Hex.encode(hash.finish())
        return check == nil ? "an offer of too many files" : nil
    }

    /// What the acceptable files among `chosen` (all when nil) cost on disk.
    func cost(of chosen: Set<Int>?) -> DiskBudget.Cost {
        guard let check else { return .zero }
        var paths: [(path: TransferPath, size: Int64)] = []
        for index in files.indices where chosen?.contains(index) ?? true {
            if case .success(let path) = check.result(index, in: files) { paths.append((path, files.size(index))) }
        }
        return DiskBudget.cost(of: paths)
    }

    /// What the accepted files still to come will take on disk: the bytes
    /// not yet verified, and two inodes each until it is in place (``DiskBudget/cost(of:)``: counted so for a small file too).
    var remainingCost: DiskBudget.Cost {
        accepted.values.filter { !$0.done }.reduce(DiskBudget.Cost.zero) {
            $0 + DiskBudget.Cost(bytes: $1.offered.size - $1.bytesHeld, inodes: 2)
        }
    }

    /// Accepts `chosen` (all acceptable files when nil), finding in `root`
    /// what a resume may use. Returns the answer's entries.
    func accept(_ chosen: Set<Int>?, root: FileDescriptor, bootID: [UInt8], now: Date) -> [FileAnswer] {
        guard let check else { return [] }
        var answers: [FileAnswer] = []
        for index in files.indices {
            switch check.result(index, in: files) {
            case .failure(let refusal):
                answers.append(FileAnswer(file: UInt32(index), verdict: .refused(refusal)))
            case .success(let path):
                guard chosen?.contains(index) ?? true else {
                    declined.insert(index)
                    answers.append(FileAnswer(file: UInt32(index), verdict: .declined))
                    continue
                }
                let resume = resumePoint(index, path: path, root: root, bootID: bootID)
                let file = IncomingFile(index: index, path: path, offered: files[index], resume: resume)
                accepted[index] = file
                answers.append(FileAnswer(file: UInt32(index), verdict: .accepted, firstBlock: file.firstBlock))
            }
        }
        // Saturating: up to 100,000 accepted sizes of 2^50 pass Int64.
        let bytes = accepted.values.reduce(DiskBudget.Cost.zero) { $0 + DiskBudget.Cost(bytes: $1.offered.size, inodes: 0) }.bytes
        meter = ProgressMeter(totalBytes: bytes, totalFiles: accepted.count, now: now)
        _ = meter.advance(bytes: accepted.values.reduce(Int64(0)) { $0 + $1.bytesHeld }, filesDone: accepted.values.filter(\.done).count, now: now)
        window = ReceiveWindow(limit: ReceiveWindow.fileLimit)
        windowEpoch += 1
        state = .active
        expires = nil
        return answers
    }

    /// The answer again, for an offer repeated on a new session: the same
    /// files, from what is verified now.
    func reanswer(root: FileDescriptor, bootID: [UInt8], now: Date) -> [FileAnswer] {
        var answers: [FileAnswer] = []
        guard let check else { return [] }
        for index in files.indices {
            switch check.result(index, in: files) {
            case .failure(let refusal):
                answers.append(FileAnswer(file: UInt32(index), verdict: .refused(refusal)))
            case .success(let path):
                guard let old = accepted[index] else {
                    answers.append(FileAnswer(file: UInt32(index), verdict: .declined))
                    continue
                }
                if !old.done && !old.finishing {
                    old.partial?.close()
                    let file = IncomingFile(index: index, path: path, offered: old.offered,
                                            resume: resumePoint(index, path: path, root: root, bootID: bootID))
                    accepted[index] = file
                }
                answers.append(FileAnswer(file: UInt32(index), verdict: .accepted, firstBlock: accepted[index]!.firstBlock))
            }
        }
        window = ReceiveWindow(limit: ReceiveWindow.fileLimit)
        windowEpoch += 1
        state = .active
        return answers
    }

    /// Where file `index` starts; the bytes that had come past its
    /// verified blocks count as resent.
    private func resumePoint(_ index: Int, path: TransferPath, root: FileDescriptor, bootID: [UInt8]) -> ResumePoint {
        guard let folder = try? DownloadFolder.folder(of: path, peerFolder: peerFolder, root: root, create: false) else { return .fresh }
        let partial = PartialFile(folder: folder, flow: flow, index: index, hash: hashKind, placed: placedLog(index))
        defer { partial.close() }
        let point = partial.resumePoint(expected: header(index, bootID: bootID))
        let kept: Int64
        switch point {
        case .fresh: kept = 0
        case .complete: return point
        case .from(let hashes), .verifyFirst(let hashes):
            kept = min(files[index].size, Int64(hashes.count) * Int64(BlockPlan(fileSize: files[index].size).blockSize))
        }
        resentBytes += max(0, partial.partialSize() - kept)
        return point
    }

    /// The log file `index` is marked in, if it has no block record of its
    /// own: a file of one block at most, while the session's block hash is
    /// the log's (a peer that gained or lost `sha256-blocks` since keeps
    /// block records, whose every slot names its hash).
    private func placedLog(_ index: Int) -> PlacedLog? {
        guard let placed, files[index].size <= PlacedRecord.maxFileSize, placed.header.hash == hashKind else { return nil }
        return placed
    }

    func header(_ index: Int, bootID: [UInt8]) -> BlockRecord.Header {
        BlockRecord.Header(flow: flow, file: UInt32(index), size: files[index].size,
                           blockSize: BlockPlan(fileSize: files[index].size).blockSize, bootID: bootID, hash: hashKind)
    }

    /// Bytes of a chunk arrived: counted here, and queued to be written and
    /// hashed off the main actor (``PartialFile/writeLater(_:at:done:)``);
    /// `written` gets the write's error, if any, once it is done. Credit is
    /// given back then (``written(_:epoch:now:)``), so the window bounds
    /// the bytes waiting for the disk. Returns why the transfer must end.
    /// `onLane`: the bytes came on a bulk lane (the window may grow to
    /// ``ReceiveWindow/laneLimit``, and the file's bytes are not hashed
    /// again, ``PartialFile/hashesBytes``).
    func chunk(file index: UInt32, offset: UInt64, bytes: UnsafeRawBufferPointer, onLane: Bool = false, root: FileDescriptor, bootID: [UInt8],
               now: Date, report: (ProgressMeter.Report) -> Void, written: @escaping @MainActor @Sendable (SystemError?) -> Void) -> TransferFault? {
        guard state == .active, let file = accepted[Int(index)], !file.done, !file.finishing else {
            return .init(.protocolError, "a chunk for file \(index), which is not being received")
        }
        guard window.received(bytes.count, now: now) else { return .init(.protocolError, "a chunk past the credit given") }
        if onLane { window.widen(to: ReceiveWindow.laneLimit) }
        if case .failure(let refusal) = file.cursor.chunk(at: offset, count: bytes.count) {
            return .init(.protocolError, refusal.description)
        }
        if file.partial == nil, let failure = openPartial(file, root: root, bootID: bootID, hashesBytes: !onLane) { return failure }
        // The frame's bytes live only during this call: the writer gets its
        // own copy, writes it and hashes it there.
        file.partial!.writeLater(bytes, at: Int64(offset), done: written)
        wireBytes += Int64(bytes.count)
        if let due = meter.advance(bytes: Int64(bytes.count), now: now) { report(due) }
        return nil
    }

    /// `count` bytes received under window `epoch` are on disk: the credit
    /// to give back now, if any (none for bytes of a window a resume
    /// replaced, or once the transfer is over).
    func written(_ count: Int, epoch: Int, now: Date) -> UInt32? {
        guard epoch == windowEpoch, state == .active else { return nil }
        return window.consumed(count, now: now).map { UInt32($0) }
    }

    private func openPartial(_ file: IncomingFile, root: FileDescriptor, bootID: [UInt8], hashesBytes: Bool) -> TransferFault? {
        do {
            let folder = try DownloadFolder.folder(of: file.path, peerFolder: peerFolder, root: root, create: true, made: &madeFolders)
            let partial = PartialFile(folder: folder, flow: flow, index: file.index, hashesBytes: hashesBytes, owner: peerID, hash: hashKind,
                                      placed: placedLog(file.index))
            do { try partial.open(header: header(file.index, bootID: bootID), keptBlocks: file.hashes.count, kept: file.hashes) } catch {
                partial.close()
                throw error
            }
            file.partial = partial
            return nil
        } catch {
            return TransferFault(writing: error, name: file.path.description)
        }
    }

    /// A block's hash arrived: compared with what was hashed and recorded
    /// on the writer, once the block's bytes are written; `checked` gets
    /// what was found. The file's hash of block hashes is built from the
    /// sender's hashes here, in order: a block that does not match fails
    /// the transfer before its file can land (``PartialFile/finish``).
    func block(file index: UInt32, block: UInt32, hash: [UInt8],
               checked: @escaping @MainActor @Sendable (PartialFile.BlockCheck) -> Void) -> TransferFault? {
        guard let file = accepted[Int(index)], !file.done else { return .init(.protocolError, "a block of file \(index), which is not being received") }
        if let refusal = file.cursor.blockHash(Int(block)) { return .init(.protocolError, refusal.description) }
        // No bytes came for it: nothing was hashed, so it cannot match (as before the writer).
        guard let partial = file.partial else { return .init(.verifyFailed, "block \(block) of \(file.path) does not match its hash") }
        file.hashes.append(hash)
        partial.verifyBlockLater(Int(block), hash: hash, done: checked)
        return nil
    }

    /// A file's end arrived: its hash of block hashes is checked; then
    /// the file that must be placed, or a fault.
    func fileEnd(file index: UInt32, hash: [UInt8], root: FileDescriptor, bootID: [UInt8]) -> Result<IncomingFile, TransferFault> {
        guard let file = accepted[Int(index)], !file.done, !file.finishing else {
            return .failure(.init(.protocolError, "the end of file \(index), which is not being received"))
        }
        if let refusal = file.cursor.end() { return .failure(.init(.protocolError, refusal.description)) }
        guard hashKind.hash(file.hashes.flatMap { $0 }) == hash else {
            return .failure(.init(.verifyFailed, "\(file.path) does not match its hash"))
        }
        // An empty file, or one whose blocks were all here: no bytes to hash.
        if file.partial == nil, let failure = openPartial(file, root: root, bootID: bootID, hashesBytes: true) { return .failure(failure) }
        file.finishing = true
        return .success(file)
    }

    /// A file is in place as `name` (in its folder).
    func placed(_ file: IncomingFile, as name: String, now: Date, report: (ProgressMeter.Report) -> Void) {
        file.finishing = false
        file.done = true
        file.savedAs = (file.path.components.dropLast() + [name]).joined(separator: "/")
        if let due = meter.advance(bytes: 0, filesDone: 1, now: now) { report(due) }
    }

    /// Whether every accepted file is in place.
    var allPlaced: Bool { accepted.values.allSatisfy(\.done) }

    /// Removes every partial file and record, and closes them; then the
    /// folders this transfer made, if nothing else is in them.
    func discardPartials(root: FileDescriptor) {
        defer {
            DownloadFolder.removeEmpty(madeFolders, root: root)
            madeFolders = []
        }
        for file in accepted.values where !file.done {
            if file.finishing { continue }
            if let partial = file.partial {
                partial.discard()
                partial.close()
                file.partial = nil
            } else if let folder = try? DownloadFolder.folder(of: file.path, peerFolder: peerFolder, root: root, create: false) {
                PartialFile(folder: folder, flow: flow, index: file.index).discard()
                folder.close()
            }
        }
    }

    /// Closes the open partial files (the session went away; they stay on disk).
    func closePartials() {
        for file in accepted.values where !file.finishing {
            file.partial?.close()
            file.partial = nil
        }
    }

    /// What clients see of the files in `range`.
    func fileInfos(_ range: Range<Int>) -> [TransferFileInfo] {
        range.map { index in
            let offered = files[index]
            let verdict: String
            if accepted[index] != nil {
                verdict = "accepted"
            } else if declined.contains(index) {
                verdict = "declined"
            } else if let refusal = check?.refusals[index] {
                verdict = refusal.reason
            } else {
                verdict = "pending"
            }
            return TransferFileInfo(index: index, name: String(decoding: offered.name, as: UTF8.self), size: offered.size, verdict: verdict,
                                    savedAs: accepted[index]?.savedAs)
        }
    }

    /// What clients see of it; its files land under `downloads`.
    func info(downloads: String, files listing: TransferFileListing) -> TransferInfo {
        let report = meter.report
        var info = TransferInfo(id: flow.description, direction: .receive, peer: peer, name: peerName, state: state,
                                totalFiles: files.count, totalBytes: declaredBytes, acceptedFiles: accepted.count,
                                acceptedBytes: report.totalBytes, filesDone: report.files, bytes: report.bytes, rate: report.rate, eta: report.eta,
                                reason: reason, detail: detail, directory: downloads + "/" + peerFolder, expires: expires)
        if let range = listing.range(count: files.count, nameSize: { files.name($0).count }) {
            info.files = fileInfos(range)
            info.filesOmitted = files.count - range.count
        }
        info.wireBytes = wireBytes
        info.resentBytes = resentBytes
        info.app = app.isDefault ? nil : app.text
        info.acceptedBy = acceptedBy
        // The peer's folder in its app's download directory (an app's
        // peerFolder is `.apps/APP/PEER`).
        info.folder = peerFolder.split(separator: "/").last.map(String.init)
        return info
    }
}
