import Dispatch
import PeerSystem

/// Received bytes go to disk off the main actor (issue 25, point 3): the
/// session that brought them reads on while they are written, so a
/// message or ping from the same peer is not held behind the page cache.
/// Each piece is hashed on ``hasher`` and then written on ``writer``
/// (issue 25, point 2): two threads, so the next piece is hashed while
/// this one is copied into the page cache. Both run one job at a time, in
/// the order queued, for every transfer; the receive window bounds what
/// waits (credit is given back only once bytes are written, after their
/// hash, ``IncomingTransfer``).
extension PartialFile {
    /// The thread every received byte is hashed on, before ``writer``.
    static let hasher = DispatchQueue(label: "peerd.transfers.hash", qos: .userInitiated)
    /// The thread every received byte and block record is written on.
    static let writer = DispatchQueue(label: "peerd.transfers.write", qos: .userInitiated)

    /// Waits until every hash and write queued so far is done: before the
    /// file is read, closed, finished or removed. (A hash job queues its
    /// write before it ends, so once ``hasher`` is drained, ``writer``
    /// holds every write left.)
    package static func settle() {
        hasher.sync {}
        writer.sync {}
    }

    /// Runs `body` on the main actor once every write and block check
    /// queued so far is done, after what they report: a file's end goes on
    /// only once its blocks are checked, as when they were checked in place.
    static func afterWrites(_ body: @escaping @MainActor @Sendable () -> Void) {
        hasher.async { writer.async { DispatchQueue.main.async { MainActor.assumeIsolated { body() } } } }
    }

    /// Queues `bytes` to be added to the running block hash and then
    /// written at `offset`; `done` gets the error, if any, on the main
    /// actor, in the order the writes were queued.
    /// The bytes are copied first (into a reused buffer, ``WriteBuffers``):
    /// the caller's live only during its call.
    func writeLater(_ source: UnsafeRawBufferPointer, at offset: Int64, done: @escaping @MainActor @Sendable (SystemError?) -> Void) {
        let job = PendingWrites.Job(file: self, bytes: WriteBuffers.take(copying: source), offset: offset, done: done)
        // Unhashed bytes go straight to the writer: the hasher holds
        // nothing of this file to order them behind.
        guard hashesBytes else { return PendingWrites.add(job) }
        Self.hasher.async {
            BulkThread.run { self.addToBlockHash(job.bytes) }
            PendingWrites.add(job)
        }
    }

    /// What checking a block found.
    enum BlockCheck: Sendable {
        /// It matched and is recorded.
        case recorded
        /// Its bytes do not hash to what the sender said.
        case mismatch
        /// The record could not be written.
        case failed(SystemError)
    }

    /// Queues the check of block `block` against `hash`, after the block's
    /// bytes, then its record as verified (a record never claims bytes
    /// that are not written yet); `done` gets what was found, on the main
    /// actor.
    func verifyBlockLater(_ block: Int, hash: [UInt8], done: @escaping @MainActor @Sendable (BlockCheck) -> Void) {
        let record: @Sendable (Bool) -> Void = { matched in
            let check: BlockCheck
            if !matched {
                self.markFailedVerification()
                check = .mismatch
            } else if case .failure(let error) = Result(catching: { () throws(SystemError) in try self.recordBlock(block, hash: hash) }) {
                check = .failed(error)
            } else {
                check = .recorded
            }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(check) } }
        }
        // The record waits among the chunks (``PendingWrites``), behind
        // its block's and ahead of the next block's: a record a thread hop
        // late let later chunks' writes go ahead, and a receiver killed
        // then had more than a block on disk past its last record, which a
        // resume receives again (issue 44; the bound is one block). A
        // lane's file is not hashed here, so its record goes straight in.
        guard hashesBytes else { return PendingWrites.addStep { record(true) } }
        Self.hasher.async {
            let matched = self.finishBlockHash() == hash
            PendingWrites.addStep { record(matched) }
        }
    }
}
