import Glibc
import PeerCore
import PeerSystem
import Synchronization
import PeerProtocol

/// One file being received (issue 12, points 2 and 4): the hidden partial
/// file and its ``BlockRecord``, side by side in the folder the file lands
/// in, named after the transfer and the file's number
/// (`.peerd-FLOW-N.part`, `.peerd-FLOW-N.blocks`), never after the
/// offered name. The last step fsyncs the data, restores the mode and
/// time, and renames it to the first free name, never over a file.
///
/// Its bytes are hashed on ``hasher`` and they and its block records are
/// written on ``writer`` (issue 25: a
/// `pwrite` into the page cache blocked the main actor for 400 ms in the
/// lab, and every session's messages with it). The rest is used by one
/// thread at a time: the main actor while bytes arrive, then a disk queue
/// for ``finish(name:size:mode:mtime:)``; and every call that reads, closes
/// or removes the file first waits for the writes queued before it
/// (``settle()``).
///
/// It is `Sendable` by construction (issue 43, point 2): what changes
/// lives behind two `Mutex`es, the running hash (taken on ``hasher``) and
/// the open descriptors (taken on ``writer``, and by the main actor or the
/// disk queue once settled), so the two threads never wait for each other
/// and the compiler checks every hand-over. Neither lock is contended in
/// practice: the queues' order already keeps the users apart.
package final class PartialFile: Sendable {
    /// The folder (owned: closed by ``close()``).
    package let folder: FileDescriptor
    /// The partial file's name.
    package let partName: String
    /// The record's name.
    package let recordName: String
    /// The open partial file and record, and how far writeback has come.
    private struct Open: ~Copyable {
        var data: FileDescriptor?
        var record: FileDescriptor?
        /// Bytes written since writeback was last started.
        var unflushedFrom: Int64?
        /// Set on ``writer`` when a block did not match its hash: the file
        /// is never put in place (``finish(name:size:mode:mtime:)`` refuses it).
        var failedVerification = false
        /// A large file's bytes wait here and go to disk past the page
        /// cache (issue 44); nil for a small file, or when none is free.
        var stage: DirectStage?
        /// A file without a block record (``placed``): its one block's
        /// hash once verified, for its slot in the transfer's record.
        var placedHash: [UInt8]?

        /// Writes what the stage holds, if there is one (before a block is
        /// recorded, and before the file is finished or closed).
        func flushStage() throws(SystemError) {
            guard let stage, let data else { return }
            try stage.flush(data: data)
        }
    }
    private let descriptors = Mutex(Open())
    /// The running hash of the block being received: used on ``hasher``
    /// alone (``writeLater(_:at:done:)``, ``verifyBlockLater(_:hash:done:)``).
    private let blockHasher: Mutex<any BlockDigest>

    /// The names for file `index` of transfer `flow`.
    package static func names(flow: FlowID, index: Int) -> (part: String, record: String) {
        (".peerd-\(flow)-\(index).part", ".peerd-\(flow)-\(index).blocks")
    }

    /// Whether received bytes are hashed here and each block compared with
    /// the sender's hash. False where the bytes came on a bulk lane
    /// (issue 44, point 2): each arrived under the lane's AEAD, so it is
    /// the very byte the sender read and hashed, and the sender's block
    /// hash is recorded as it is; a resume after a reboot still hashes the
    /// recorded blocks on disk again (``resumePoint(expected:)``). That
    /// spares a BLAKE2b pass and a thread hop per byte on the receiver
    /// (docs/performance.md, "Integrity at a lower cost").
    package let hashesBytes: Bool

    /// Whose file it is (the sending peer's id): its stage, if it gets
    /// one, is counted on that peer's share (``StageSlots``).
    package let owner: String

    /// The file's number in its offer.
    package let index: Int

    /// Where a file of one block at most is marked in place, instead of a
    /// block record of its own (``PlacedRecord``); nil: it has a record.
    package let placed: PlacedLog?

    /// The hash of its blocks, the session's (docs/protocol.md §8).
    package let hashKind: BlockHashKind

    /// Takes `folder`; opens nothing yet. `hashesBytes`: see
    /// ``hashesBytes``; `owner`: see ``owner``; `hash`: see ``hashKind``;
    /// `placed`: see ``placed``.
    package init(folder: FileDescriptor, flow: FlowID, index: Int, hashesBytes: Bool = true, owner: String = "", hash: BlockHashKind = .blake2b,
                 placed: PlacedLog? = nil) {
        self.hashesBytes = hashesBytes
        self.index = index
        self.placed = placed
        hashKind = hash
        blockHasher = Mutex(hash.digest())
        self.owner = owner
        self.folder = folder
        (partName, recordName) = Self.names(flow: flow, index: index)
    }

    /// The partial file's size on disk (0 when there is none): how far
    /// bytes had come, verified or not.
    package func partialSize() -> Int64 {
        Self.settle()
        guard let fd = try? folder.openAt(partName, flags: O_RDONLY) else { return 0 }
        defer { fd.close() }
        return (try? fd.status()).map { Int64($0.st_size) } ?? 0
    }

    /// Where this file starts (reading the record and checking the partial
    /// file; after another boot, the recorded blocks are hashed again). A
    /// file without a block record reads its slot in ``placed``; a block
    /// record an earlier release left for it still counts first.
    package func resumePoint(expected: BlockRecord.Header) -> ResumePoint {
        Self.settle()
        let exists = (try? folder.contains(partName)) ?? false
        var bytes: [UInt8] = []
        if let fd = try? folder.openAt(recordName, flags: O_RDONLY) {
            defer { fd.close() }
            let plan = BlockPlan(fileSize: expected.size)
            bytes = (try? fd.read(count: BlockRecord.headerLength + BlockRecord.slotLength * plan.count, at: 0)) ?? []
        }
        var record = BlockRecord.decode(bytes)
        if record == nil, let placed, let slots = placed.read(files: Int(expected.file) + 1) {
            record = PlacedRecord.asBlockRecord(slots, expected: expected)
        }
        let point = ResumePoint.decide(expected: expected, record: record, partialExists: exists)
        guard case .verifyFirst(let hashes) = point else { return point }
        return .from(hashes: verified(hashes, plan: BlockPlan(fileSize: expected.size), hash: expected.hash))
    }

    /// The leading blocks whose bytes on disk still hash, with `hash`
    /// (the record's, which is the session's), to `hashes`.
    private func verified(_ hashes: [[UInt8]], plan: BlockPlan, hash: BlockHashKind) -> [[UInt8]] {
        guard let fd = try? folder.openAt(partName, flags: O_RDONLY) else { return [] }
        defer { fd.close() }
        let hasher = hash.digest()
        var good: [[UInt8]] = []
        var buffer = [UInt8](repeating: 0, count: 1 << 20)
        for (block, expected) in hashes.enumerated() {
            let range = plan.range(of: block)
            var offset = range.lowerBound
            while offset < range.upperBound {
                let want = Int(min(Int64(buffer.count), range.upperBound - offset))
                let got = (try? fd.read(into: &buffer, count: want, at: offset)) ?? 0
                guard got == want else { return good }
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
                offset += Int64(want)
            }
            guard hasher.finish() == expected else { return good }
            good.append(expected)
        }
        return good
    }

    /// Opens the partial file and its record for writing. The first
    /// `keptBlocks` blocks stay (a resume); the record is cut to their
    /// slots and given `header`, this boot's: a slot past them, left from
    /// before, must not count later.
    /// `kept`: the kept blocks' hashes; a file without a block record
    /// (``placed``) keeps its one hash for its slot, since a resume that
    /// kept its block receives no block hash again.
    package func open(header: BlockRecord.Header, keptBlocks: Int, kept: [[UInt8]] = []) throws(SystemError) {
        let flags = O_RDWR | O_CREAT | (keptBlocks == 0 ? O_TRUNC : 0)
        let dataFD = try folder.openAt(partName, flags: flags)
        if placed != nil {
            // No block record: its one hash waits in memory for its slot.
            let (partName, folder, owner) = (partName, folder, owner)
            return descriptors.withLock {
                $0.data = dataFD
                $0.placedHash = keptBlocks > 0 ? kept.first : nil
                $0.stage = DirectStage.open(partName, in: folder, fileSize: header.size, owner: owner)
            }
        }
        let recordFD: FileDescriptor
        do { recordFD = try folder.openAt(recordName, flags: O_RDWR | O_CREAT) } catch {
            dataFD.close()
            throw error
        }
        do throws(SystemError) {
            try recordFD.truncate(Int64(BlockRecord.headerLength + BlockRecord.slotLength * keptBlocks))
            try recordFD.write(BlockRecord.encode(header), at: 0)
        } catch {
            dataFD.close()
            recordFD.close()
            throw error
        }
        let (partName, folder, owner) = (partName, folder, owner)
        descriptors.withLock {
            $0.data = dataFD
            $0.record = recordFD
            $0.stage = DirectStage.open(partName, in: folder, fileSize: header.size, owner: owner)
        }
    }

    /// Writeback starts every this many bytes.
    static let writebackStep: Int64 = 8 << 20

    /// The permission bits a received file may keep: never set-id, sticky,
    /// group- or world-writable, whatever the sender's mode says.
    package static let modeMask: UInt32 = 0o755

    /// Writes bytes at `offset`: into the stage, for a large file (its
    /// bytes go to disk a stage at a time, past the page cache). Otherwise
    /// through the page cache, and every 8 MiB the kernel is asked to start
    /// writing them out, so the fsync at the end finds little to do and
    /// dirty pages do not pile up.
    package func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        let partName = partName
        try descriptors.withLock { (open: inout Open) throws(SystemError) in
            guard let data = open.data else { throw SystemError("pwrite", errno: EBADF, context: partName) }
            if let stage = open.stage { return try stage.write(bytes, at: offset, data: data) }
            try data.write(bytes, at: offset)
            let start = open.unflushedFrom ?? offset
            let end = offset + Int64(bytes.count)
            if end - start >= Self.writebackStep {
                data.startWriteback(offset: start, count: end - start)
                open.unflushedFrom = end
            } else {
                open.unflushedFrom = start
            }
        }
    }

    /// Adds received bytes to the running block hash (on ``hasher``).
    func addToBlockHash(_ bytes: BulkBuffer) {
        blockHasher.withLock { hasher in bytes.withUnsafeBytes { hasher.update($0) } }
    }

    /// The block's hash, and a fresh one for the next (on ``hasher``).
    func finishBlockHash() -> [UInt8] {
        blockHasher.withLock { $0.finish() }
    }

    /// A block did not match: the file must never land (on ``writer``).
    func markFailedVerification() {
        descriptors.withLock { $0.failedVerification = true }
    }

    /// Records block `block` as verified, with its hash, once its bytes are
    /// written (a staged rest of them first).
    package func recordBlock(_ block: Int, hash: [UInt8]) throws(SystemError) {
        let isPlaced = placed != nil
        let record = try descriptors.withLock { (open: inout Open) throws(SystemError) in
            try open.flushStage()
            if isPlaced { open.placedHash = hash }
            return open.record
        }
        if isPlaced { return }
        guard let record else { throw SystemError("pwrite", errno: EBADF, context: recordName) }
        let slot = BlockRecord.slot(block: block, hash: hash)
        try record.write(slot.bytes, at: slot.offset)
    }

    /// Cuts the file to `size`, restores `mode` and `mtime`, and starts
    /// its writeback (and its record's).
    func prepare(size: Int64, mode: UInt32, mtime: Int64) throws(SystemError) {
        // A block checked on the writer did not match: its failure is on its
        // way to the main actor; this file must not land meanwhile.
        let (data, record, failed) = try descriptors.withLock { (open: inout Open) throws(SystemError) in
            try open.flushStage()
            open.stage = nil
            return (open.data, open.record, open.failedVerification)
        }
        if failed { throw SystemError("verify", errno: EBADMSG, context: partName) }
        guard let data else { throw SystemError("fsync", errno: EBADF, context: partName) }
        try data.truncate(size)
        try data.setMode(mode_t(mode & Self.modeMask))
        try data.setModified(mtime)
        data.startWriteback(offset: 0, count: 0)
        record?.startWriteback(offset: 0, count: 0)
    }

    /// Flushes the file and its record to disk.
    func flushForPlacement() throws(SystemError) {
        let (data, record) = descriptors.withLock { ($0.data, $0.record) }
        guard let data else { throw SystemError("fsync", errno: EBADF, context: partName) }
        try data.sync()
        try record?.sync()
    }

    /// A file without a block record: its one block's hash, once verified
    /// (or kept by a resume), for its slot in the transfer's record.
    var placedHash: [UInt8]? { descriptors.withLock { $0.placedHash } }

    /// Removes the partial file and the record (a cancel, or a failure).
    package func discard() {
        Self.settle()
        try? folder.remove(partName)
        try? folder.remove(recordName)
    }

    /// Removes the record once the transfer is done.
    package func discardRecord() {
        try? folder.remove(recordName)
    }

    /// Closes everything.
    package func close() {
        Self.settle()
        let (data, record) = descriptors.withLock { open in
            // Staged bytes still count toward how far the file came (a
            // resume's resent bytes, ``partialSize()``).
            try? open.flushStage()
            defer { (open.data, open.record, open.stage) = (nil, nil, nil) }
            return (open.data, open.record)
        }
        data?.close()
        record?.close()
        folder.close()
    }
}
