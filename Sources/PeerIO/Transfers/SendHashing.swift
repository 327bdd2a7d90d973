import PeerCore
import PeerProtocol
import Synchronization

/// The hashing of one offer of an ``OutgoingTransfer``, done on the
/// session's lane with the reads (issue 25, point 2): the running block
/// hash, the hashes of the file's blocks so far, and the first failure of
/// a read, after which nothing more of the transfer is sent.
///
/// A new offer (on a new session) starts a new one, so jobs still queued
/// on the old session's lane never touch the new one.
///
/// It is `Sendable` by construction (issue 43, point 2): it is made on
/// the main actor and then used by jobs on one session's lane, which run
/// one at a time, and the main actor reads ``failure`` once a job's
/// outcome came back. Its state sits behind a `Mutex` that this order
/// keeps uncontended, so the compiler, not a comment, checks the hand-over.
final class SendHashing: Sendable {
    private struct State: ~Copyable {
        var failure: (reason: FlowEndReason, text: String)?
        let hasher: any BlockDigest
        var blockHashes: [[UInt8]] = []
    }
    private let state: Mutex<State>
    /// The hash, the session's (docs/protocol.md §8).
    let kind: BlockHashKind

    /// Why the transfer cannot go on, once a read failed.
    var failure: (reason: FlowEndReason, text: String)? { state.withLock { $0.failure } }

    /// A fresh hashing, for one offer on a session whose hash is `kind`.
    init(kind: BlockHashKind = .blake2b) {
        self.kind = kind
        state = Mutex(State(hasher: kind.digest()))
    }

    /// Adds bytes of the current block.
    func update(_ bytes: UnsafeRawBufferPointer) {
        // A pointer is not Sendable, and one captured into the lock's body
        // would tie the hasher to the caller's region. Its address and
        // length are plain numbers: the bytes are read only during the
        // call, while the caller keeps them alive.
        let (address, count) = (UInt(bitPattern: bytes.baseAddress), bytes.count)
        state.withLock { $0.hasher.update(UnsafeRawBufferPointer(start: UnsafeRawPointer(bitPattern: address), count: count)) }
    }

    /// The current block's hash, remembered for the file's.
    func finishBlock() -> [UInt8] {
        state.withLock { state in
            let hash = state.hasher.finish()
            state.blockHashes.append(hash)
            return hash
        }
    }

    /// The file's hash (of its blocks' hashes, docs/protocol.md §8); the
    /// next file starts afresh.
    func finishFile() -> [UInt8] {
        state.withLock { state in
            defer { state.blockHashes = [] }
            return kind.hash(state.blockHashes.flatMap { $0 })
        }
    }

    /// Records the first failure; later ones say nothing new.
    func fail(_ reason: FlowEndReason, _ text: String) {
        state.withLock { state in
            if state.failure == nil { state.failure = (reason, text) }
        }
    }
}
