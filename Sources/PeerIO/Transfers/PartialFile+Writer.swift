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

    /// Queues `bytes` to be written at `offset`; `done` gets the error, if
    /// any, on the main actor, in the order the writes were queued.
    public func writeLater(_ bytes: [UInt8], at offset: Int64, done: @escaping @MainActor @Sendable (SystemError?) -> Void) {
        Self.writer.async {
            let outcome = bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try self.write(raw, at: offset) } }
            let failure: SystemError? = if case .failure(let error) = outcome { error } else { nil }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(failure) } }
        }
    }

    /// Queues the record of block `block` as verified, after the block's
    /// bytes (a record never claims bytes that are not written yet);
    /// `done` as for ``writeLater(_:at:done:)``.
    public func recordBlockLater(_ block: Int, hash: [UInt8], done: @escaping @MainActor @Sendable (SystemError?) -> Void) {
        Self.writer.async {
            let outcome = Result { () throws(SystemError) in try self.recordBlock(block, hash: hash) }
            let failure: SystemError? = if case .failure(let error) = outcome { error } else { nil }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(failure) } }
        }
    }
}
