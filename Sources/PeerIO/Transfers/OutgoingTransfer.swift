import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerProtocol

/// One transfer this host sends (issue 12): the manifest and the
/// descriptors the client handed over, the offer, and once answered, the
/// accepted files in blocks as the ``SendCursor`` directs, within the
/// receiver's credit and the session's room. It holds the descriptors
/// until it ends, so the transfer resumes on a later session by itself.
@MainActor
final class OutgoingTransfer {
    /// What ``pump(into:limit:now:report:)`` came to.
    enum PumpOutcome {
        /// Went as far as room and credit allow.
        case waiting
        /// Every accepted file is sent; the receiver's `transferDone` is awaited.
        case sentAll
        /// It cannot go on.
        case failed(FlowEndReason, String)
    }

    let flow: FlowID
    let peer: UUID
    let peerID: String
    var peerName: String
    private(set) var files: [OfferedFile] = []
    /// The files, open until they are done with (a job reading one keeps it open).
    private var descriptors: [OpenFile?] = []
    /// Whether the client sent the whole manifest.
    private(set) var manifestComplete = false
    var state: TransferState = .offered
    var reason: FlowEndReason?
    var detail: String?
    /// When it ended (for the list of recent transfers).
    var endedAt: Date?
    private(set) var verdicts: [FileVerdict?] = []
    private var answers: [FileAnswer] = []
    private var cursor: SendCursor?
    private var credit = SendCredit()
    /// This offer's hashing, on the session's lane with the reads.
    private var hashing = SendHashing()
    /// Files whose size and time were checked against the offer.
    private var checked = Set<Int>()
    private(set) var meter: ProgressMeter
    private(set) var bytesSent: Int64 = 0
    /// Chunk bytes sent, every session counted.
    private(set) var wireBytes: Int64 = 0
    private(set) var filesSent = 0

    /// When the client began it (a manifest must be whole within a minute).
    let createdAt: Date

    /// The app whose files these are: its offer goes in `appFlow`, to the
    /// peer's clients of that app alone (issue 23, point 4).
    let app: AppName

    init(flow: FlowID, peer: UUID, peerID: String, peerName: String, app: AppName = .none, now: Date) {
        createdAt = now
        self.app = app
        self.flow = flow
        self.peer = peer
        self.peerID = peerID
        self.peerName = peerName
        meter = ProgressMeter(totalBytes: 0, totalFiles: 0, now: now)
    }

    /// Adds a part of the manifest with its descriptors (one each).
    func add(_ part: [OfferedFile], descriptors part2: [FileDescriptor], last: Bool) {
        files += part
        descriptors += part2.map { OpenFile($0) }
        manifestComplete = last
    }

    var totalBytes: Int64 { files.reduce(0) { $0 + $1.size } }

    /// The offer, in parts that each fit one frame.
    func offerMessages() -> [BulkMessage] {
        var parts: [[OfferedFile]] = [[]]
        var size = 0
        let budget = WireCodec.maxPlaintext - 64
        for file in files {
            let entry = 2 + file.name.count + 20
            if size + entry > budget || parts[parts.count - 1].count == Int(UInt16.max) {
                parts.append([])
                size = 0
            }
            parts[parts.count - 1].append(file)
            size += entry
        }
        return parts.enumerated().map { index, part in
            .offer(flow, more: index < parts.count - 1, totalFiles: UInt32(files.count), totalBytes: UInt64(totalBytes), files: part)
        }
    }

    /// The offer goes out (again, on a new session): the answer starts
    /// over, and its hashes are of `hash`, the session's.
    func offered(hash: BlockHashKind) {
        answers = []
        cursor = nil
        credit = SendCredit()
        hashing = SendHashing(kind: hash)
        state = .offered
    }

    /// A part of the answer. Returns whether the answer is whole (then
    /// sending starts), or why it is refused.
    func answered(_ part: [FileAnswer], more: Bool, now: Date) -> Result<Bool, ControlError> {
        guard state == .offered else { return .failure(ControlError(.badRequest, "an answer to a transfer that was not offered")) }
        answers += part
        guard answers.count <= files.count else { return .failure(ControlError(.badRequest, "an answer with more files than offered")) }
        guard !more else { return .success(false) }
        verdicts = [FileVerdict?](repeating: .declined, count: files.count)
        var chosen: [SendCursor.File] = []
        var accepted = Set<UInt32>()
        for answer in answers {
            guard Int(answer.file) < files.count, accepted.insert(answer.file).inserted else {
                return .failure(ControlError(.badRequest, "an answer names file \(answer.file) twice or out of range"))
            }
            verdicts[Int(answer.file)] = answer.verdict
        }
        var done: Int64 = 0
        for answer in answers.sorted(by: { $0.file < $1.file }) where answer.verdict == .accepted {
            let size = files[Int(answer.file)].size
            if answer.firstBlock == ResumePoint.completeMarker {
                closeFile(Int(answer.file))
                filesSent += 1
                done += size
                continue
            }
            let file = SendCursor.File(index: answer.file, size: size, firstBlock: Int(answer.firstBlock))
            chosen.append(file)
            done += min(size, Int64(file.firstBlock) * Int64(file.plan.blockSize))
        }
        for (index, verdict) in verdicts.enumerated() where verdict != .accepted { closeFile(index) }
        let acceptedBytes = answers.filter { $0.verdict == .accepted }.reduce(Int64(0)) { $0 + files[Int($1.file)].size }
        meter = ProgressMeter(totalBytes: acceptedBytes, totalFiles: answers.filter { $0.verdict == .accepted }.count, now: now)
        _ = meter.advance(bytes: done, filesDone: filesSent, now: now)
        bytesSent = done
        cursor = SendCursor(files: chosen)
        state = .active
        return .success(true)
    }

    /// Files accepted and bytes of them.
    var accepted: (files: Int, bytes: Int64) {
        var count = 0
        var bytes: Int64 = 0
        for (index, verdict) in verdicts.enumerated() where verdict == .accepted {
            count += 1
            bytes += files[index].size
        }
        return (count, bytes)
    }

    /// The receiver allows `bytes` more.
    func granted(_ bytes: UInt32) -> Bool { credit.grant(Int(bytes)) }

    /// Sends what room and credit allow, up to about `limit` file bytes
    /// (its turn). `report` gets progress when due. The reads, hashes and
    /// sealing happen on the session's lane (issue 25, point 2); a read
    /// that fails there calls `failed` on the main actor, and nothing more
    /// of this offer is sent.
    func pump(into session: any BulkSession, limit: Int = .max, now: Date, report: (ProgressMeter.Report) -> Void,
              failed: @escaping @MainActor @Sendable (FlowEndReason, String) -> Void) -> PumpOutcome {
        guard state == .active, cursor != nil else { return .waiting }
        let start = bytesSent
        let hashing = hashing
        let dropped: @MainActor @Sendable () -> Void = { if let failure = hashing.failure { failed(failure.reason, failure.text) } }
        while session.bulkRoom > 0 && bytesSent - start < Int64(limit) {
            guard credit.available > 0 else { return .waiting }
            let step = cursor!.next(maxChunk: min(BulkCodec.maxChunk, credit.available))
            switch step {
            case .done:
                return .sentAll
            case .fileEnd(let file):
                let flow = flow
                session.sendBulkLater { hashing.failure == nil ? .fileEnd(flow, file: file, hash: hashing.finishFile()) : nil }
                // The descriptor stays until the end: a resume may need
                // the file's hash again if the receiver had not placed it.
                filesSent += 1
                if let due = meter.advance(bytes: 0, filesDone: 1, now: now) { report(due) }
            case .bytes(let file, let offset, let length, let send, let endsBlock):
                if let changed = checkUnchanged(Int(file), at: offset) { return changed }
                guard let open = descriptors[Int(file)] else { return .failed(.ioError, "file \(file) is closed") }
                if send {
                    guard sendChunk(open, file: file, offset: offset, length: length, on: session, dropped: dropped) else {
                        return .failed(.ioError, "the session closed")
                    }
                    _ = credit.take(length)
                    bytesSent += Int64(length)
                    wireBytes += Int64(length)
                    if let due = meter.advance(bytes: Int64(length), now: now) { report(due) }
                } else {
                    // Blocks the receiver has: hashed again for the file's
                    // hash, in their place among the lane's jobs.
                    let name = name(Int(file))
                    guard session.transmitBulkLater(capacity: 0, cost: length, fill: { _ in
                        Self.hashAgain(open, name: name, offset: offset, length: length, into: hashing) ? 0 : nil
                    }, dropped: dropped) else { return .failed(.ioError, "the session closed") }
                }
                if let block = endsBlock {
                    let flow = flow
                    session.sendBulkLater {
                        guard hashing.failure == nil else { return nil }
                        let hash = hashing.finishBlock()
                        return send ? .block(flow, file: file, block: UInt32(block), hash: hash) : nil
                    }
                }
            }
        }
        return .waiting
    }

    /// Queues `length` bytes of file `file` at `offset` to be read on the
    /// lane straight into a `chunk` frame, hashed there, and sent.
    private func sendChunk(_ open: OpenFile, file: UInt32, offset: Int64, length: Int, on session: any BulkSession,
                           dropped: @escaping @MainActor @Sendable () -> Void) -> Bool {
        let (flow, hashing, label) = (flow, hashing, name(Int(file)))
        let head = BulkCodec.chunkHeadLength
        return session.transmitBulkLater(capacity: head + length, cost: head + length, fill: { raw in
            guard hashing.failure == nil else { return nil }
            BulkCodec.writeChunkHead(flow, file: file, offset: UInt64(offset), into: raw)
            let body = UnsafeMutableRawBufferPointer(rebasing: raw[head..<(head + length)])
            do {
                guard try open.descriptor.read(into: body, at: offset) == length else {
                    hashing.fail(.verifyFailed, "\(label) shrank while it was being sent")
                    return nil
                }
            } catch {
                hashing.fail(.ioError, "\(label): \(error)")
                return nil
            }
            hashing.update(UnsafeRawBufferPointer(body))
            return head + length
        }, dropped: dropped)
    }

    private func name(_ index: Int) -> String { String(decoding: files[index].name, as: UTF8.self) }

    /// The file must still be the one offered, checked as its first bytes are read.
    private func checkUnchanged(_ index: Int, at offset: Int64) -> PumpOutcome? {
        guard offset == 0 || !checked.contains(index) else { return nil }
        checked.insert(index)
        guard let fd = descriptors[index]?.descriptor, let info = try? fd.status(), Int64(info.st_size) == files[index].size,
              Int64(info.st_mtim.tv_sec) == files[index].mtime else {
            return .failed(.verifyFailed, "\(name(index)) changed since it was offered")
        }
        return nil
    }

    /// Reads and hashes `length` bytes of `open` at `offset` on the lane:
    /// a whole block at most, in pieces of at most 1 MiB, through one
    /// buffer freed after. False, with the failure recorded, if it failed.
    private nonisolated static func hashAgain(_ open: OpenFile, name: String, offset: Int64, length: Int, into hashing: SendHashing) -> Bool {
        guard hashing.failure == nil else { return false }
        let piece = min(length, 1 << 20)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: max(piece, 1), alignment: 64)
        defer { buffer.deallocate() }
        var done = 0
        while done < length {
            let want = min(piece, length - done)
            do {
                guard try open.descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: buffer[0..<want]), at: offset + Int64(done)) == want else {
                    hashing.fail(.verifyFailed, "\(name) shrank while it was being sent")
                    return false
                }
            } catch {
                hashing.fail(.ioError, "\(name): \(error)")
                return false
            }
            hashing.update(UnsafeRawBufferPointer(rebasing: buffer[0..<want]))
            done += want
        }
        return true
    }

    /// Lets go of a file: it closes once no queued read holds it.
    private func closeFile(_ index: Int) {
        descriptors[index] = nil
    }

    /// Lets go of every file still held.
    func closeAll() {
        for index in descriptors.indices { closeFile(index) }
    }
}
