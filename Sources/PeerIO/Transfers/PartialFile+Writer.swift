import Dispatch
import PeerSystem

/// Received bytes go to disk off the main actor (issue 25, point 3): the
/// session that brought them reads on while they are written, so a
/// message or ping from the same peer is not held behind the page cache.
/// Writes run one at a time, in the order queued, on one thread for every
/// transfer; the receive window bounds what waits (credit is given back
/// only once bytes are written, ``IncomingTransfer``).
extension PartialFile {
    /// The thread every received byte and block record is written on.
    static let writer = DispatchQueue(label: "peerd.transfers.write", qos: .userInitiated)

    /// Waits until every write queued so far is done: before the file is
    /// read, closed, finished or removed.
    public static func settle() { writer.sync {} }

    /// Runs `body` on the main actor once every write and block check
    /// queued so far is done, after what they report: a file's end goes on
    /// only once its blocks are checked, as when they were checked in place.
    static func afterWrites(_ body: @escaping @MainActor @Sendable () -> Void) {
        writer.async { DispatchQueue.main.async { MainActor.assumeIsolated { body() } } }
    }

    /// Queues `bytes` to be written at `offset` and added to the running
    /// block hash (hashing leaves the main actor too: issue 25, point 2);
    /// `done` gets the error, if any, on the main actor, in the order the
    /// writes were queued.
    func writeLater(_ bytes: [UInt8], at offset: Int64, done: @escaping @MainActor @Sendable (SystemError?) -> Void) {
        Self.writer.async {
            let outcome = bytes.withUnsafeBytes { raw in
                Result { () throws(SystemError) in
                    try self.write(raw, at: offset)
                    self.blockHasher.update(raw)
                }
            }
            let failure: SystemError? = if case .failure(let error) = outcome { error } else { nil }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(failure) } }
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
        Self.writer.async {
            let check: BlockCheck
            if self.blockHasher.finish() != hash {
                self.failedVerification = true
                check = .mismatch
            } else if case .failure(let error) = Result(catching: { () throws(SystemError) in try self.recordBlock(block, hash: hash) }) {
                check = .failed(error)
            } else {
                check = .recorded
            }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(check) } }
        }
    }
}
