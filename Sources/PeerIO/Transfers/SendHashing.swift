import PeerCore
import PeerProtocol

/// The hashing of one offer of an ``OutgoingTransfer``, done on the
/// session's lane with the reads (issue 25, point 2): the running block
/// hash, the hashes of the file's blocks so far, and the first failure of
/// a read, after which nothing more of the transfer is sent.
///
/// A new offer (on a new session) starts a new one, so jobs still queued
/// on the old session's lane never touch the new one.
///
/// `@unchecked Sendable` is safe here: it is made on the main actor and
/// then used only by jobs on one session's lane, which run one at a time;
/// the main actor reads ``failure`` only after a job's outcome came back
/// (the job's writes happen before it is posted).
final class SendHashing: @unchecked Sendable {
    /// Why the transfer cannot go on, once a read failed.
    private(set) var failure: (reason: FlowEndReason, text: String)?
    private let hasher = Blake2b()
    private var blockHashes: [[UInt8]] = []

    /// A fresh hashing, for one offer.
    init() {}

    /// Adds bytes of the current block.
    func update(_ bytes: UnsafeRawBufferPointer) { hasher.update(bytes) }

    /// The current block's hash, remembered for the file's.
    func finishBlock() -> [UInt8] {
        let hash = hasher.finish()
        blockHashes.append(hash)
        return hash
    }

    /// The file's hash (of its blocks' hashes, docs/protocol.md §8); the
    /// next file starts afresh.
    func finishFile() -> [UInt8] {
        let root = Blake2b.hash(blockHashes.flatMap { $0 })
        blockHashes = []
        return root
    }

    /// Records the first failure; later ones say nothing new.
    func fail(_ reason: FlowEndReason, _ text: String) {
        if failure == nil { failure = (reason, text) }
    }
}
