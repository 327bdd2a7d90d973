import Dispatch
import PeerCore
import PeerSystem

/// The sending side's reads off the main actor (issue 25, point 2): an
/// outgoing transfer's next chunks are read from its files and hashed on
/// one reader thread, ahead of the session's room, while the main actor
/// seals and sends the ones before them. Each ``OutgoingTransfer`` has
/// its own reader; what it reads ahead is bounded (``readAhead``), and
/// what it finds comes back on the main actor in the order it was asked.
///
/// `@unchecked Sendable` is safe here: `hasher` and `buffer` are touched
/// only by jobs on ``queue``, which is serial; the main actor touches
/// only `epoch`, and descriptors are closed only after ``settle()``.
final class ChunkReader: @unchecked Sendable {
    /// The thread every outgoing transfer reads on.
    static let queue = DispatchQueue(label: "peerd.transfers.read", qos: .userInitiated)
    /// File bytes a transfer reads ahead of the session, at most.
    static let readAhead = 512 * 1024
    /// Bytes read at once for a block that is hashed but not sent (a
    /// resumed file's kept blocks).
    static let piece = 1 << 20

    /// One step, in the order the transfer's ``SendCursor`` gave it.
    enum Job: Sendable {
        /// Read (and hash) `length` bytes of `file` at `offset` from `fd`;
        /// `send` says whether they go out; `endsBlock` closes a block.
        case bytes(file: UInt32, offset: Int64, length: Int, send: Bool, endsBlock: Int?, fd: Int32, name: String)
        /// The end of a file: passes through, in order.
        case fileEnd(UInt32)
        /// Every accepted file is read.
        case done
    }

    /// What a job came to.
    enum Outcome: Sendable {
        /// Bytes to send (`bytes`), and the block they end with its hash, if they end one.
        case chunk(file: UInt32, offset: Int64, bytes: [UInt8], block: Int?, blockHash: [UInt8]?)
        /// Bytes hashed and not sent, and the hash of the block they end, if any.
        case hashed(blockHash: [UInt8]?)
        /// The end of a file, in order.
        case fileEnd(UInt32)
        /// Every accepted file is read.
        case done
        /// A read failed: the transfer ends.
        case failed(FlowEndReason, String)
    }

    private let hasher = Blake2b()
    private var buffer: [UInt8] = []
    /// Which offer the jobs belong to: an offer made again (a new session)
    /// starts over, and what was read for the old one is dropped.
    @MainActor private(set) var epoch = 0

    /// A reader with nothing read.
    init() {}

    /// Waits until every read asked so far is done: before a descriptor closes.
    static func settle() { queue.sync {} }

    /// Starts over: a new epoch, and the block hash begun is dropped.
    @MainActor func restart() {
        epoch += 1
        Self.queue.async { self.hasher.reset() }
    }

    /// Gives the buffer for unsent reads back.
    func release() { Self.queue.async { self.buffer = [] } }

    /// Runs `job` on the reader; `done` gets its outcome and the epoch it
    /// was asked in, on the main actor.
    @MainActor func submit(_ job: Job, done: @escaping @MainActor @Sendable (Outcome, Int) -> Void) {
        let epoch = epoch
        Self.queue.async {
            let outcome = self.run(job)
            DispatchQueue.main.async { MainActor.assumeIsolated { done(outcome, epoch) } }
        }
    }

    private func run(_ job: Job) -> Outcome {
        switch job {
        case .fileEnd(let file): return .fileEnd(file)
        case .done: return .done
        case .bytes(let file, let offset, let length, let send, let endsBlock, let fd, let name):
            let descriptor = FileDescriptor(rawValue: fd)
            if send {
                var bytes = [UInt8](repeating: 0, count: length)
                let got: Int
                do { got = try bytes.withUnsafeMutableBytes { raw throws(SystemError) in try descriptor.read(into: raw, at: offset) } } catch {
                    return .failed(.ioError, "\(name): \(error)")
                }
                guard got == length else { return .failed(.verifyFailed, "\(name) shrank while it was being sent") }
                hasher.update(bytes)
                return .chunk(file: file, offset: offset, bytes: bytes, block: endsBlock, blockHash: endsBlock.map { _ in hasher.finish() })
            }
            let piece = min(length, Self.piece)
            if buffer.count < piece { buffer = [UInt8](repeating: 0, count: piece) }
            var done = 0
            while done < length {
                let want = min(piece, length - done)
                let got: Int
                do { got = try descriptor.read(into: &buffer, count: want, at: offset + Int64(done)) } catch {
                    return .failed(.ioError, "\(name): \(error)")
                }
                guard got == want else { return .failed(.verifyFailed, "\(name) shrank while it was being sent") }
                buffer.withUnsafeBytes { hasher.update(UnsafeRawBufferPointer(rebasing: $0[0..<want])) }
                done += want
            }
            return .hashed(blockHash: endsBlock.map { _ in hasher.finish() })
        }
    }
}
