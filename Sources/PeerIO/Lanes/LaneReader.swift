import Dispatch
import Glibc
import PeerCore
import PeerSystem
import Synchronization

/// A bulk lane's receiving half, off the main actor (issue 44, point 3):
/// its own thread reads the lane's socket, cuts frames and opens them in
/// place, at nice 5 (``BulkThread``), and hands the main actor batches of
/// plaintexts, one main-queue turn per read. The main actor then only
/// routes them; the decryption, the largest cost of receiving, runs on the
/// other core, behind every small thing (a message, a ping) that wakes.
///
/// Bounded: at most ``outstandingLimit`` bytes of batches wait for the
/// main actor; past that the reader stops reading (TCP holds the rest, and
/// the peer's sends wait), and starts again as batches are taken. Its
/// buffers (one read and a frame's remainder each) are reused, and let go
/// when a tick passes without bulk (``settle()``).
///
/// It reads a descriptor of its own (a `dup` of the lane's socket), closed
/// when it stops: the lane's transport keeps writing on the other, and
/// neither ever waits for the other to close.
final class LaneReader: Sendable {
    /// Bytes asked of the socket per read.
    static let readSize = 256 * 1024
    /// Room for a frame begun at the end of the last read.
    static let carryRoom = 2 + 65535
    /// Bytes of batches that may wait for the main actor.
    static let outstandingLimit = 1 << 20
    /// Buffers kept for reuse: enough for every batch the limit lets wait,
    /// and the one being read. Fewer measured page faults and page clears
    /// at some 7% of both cores: a fresh buffer of this size is mapped
    /// anew (glibc's mmap threshold) and every page of it faulted in.
    static let keptBuffers = outstandingLimit / (readSize + carryRoom) + 2

    /// What arrived in one read: the buffer, and where each plaintext lies in it.
    struct Batch: Sendable {
        /// The read's buffer (given back once the main actor is done).
        var buffer: [UInt8]
        /// The plaintexts, in order.
        var frames: [Range<Int>]
        /// Its bytes, counted against ``outstandingLimit``.
        var cost: Int { buffer.count }
    }

    /// What the reader hands the main actor.
    enum Report: Sendable {
        /// Frames, in order.
        case batch(Batch)
        /// The lane ended: closed by the peer or broken (`corrupt` false),
        /// or a frame that did not open (`corrupt` true, a protocol error).
        case ended(String, corrupt: Bool)
    }

    /// What the reader's thread alone uses (a lock never contended: only
    /// its serial queue takes it).
    private struct Work: ~Copyable {
        var cipher: NoiseCipherState
        /// The start of a frame not yet whole, carried to the next read.
        var carry: [UInt8]
    }

    /// What the main actor and the reader share, each briefly.
    private struct Shared: ~Copyable {
        var source: (any DispatchSourceRead)?
        var suspended = false
        var outstanding = 0
        var free: [[UInt8]] = []
        var stopped = false
        /// Whether a read filled a buffer since the last ``settle()``.
        var busy = false
    }

    private let work: Mutex<Work>
    private let shared = Mutex(Shared())
    private let queue = DispatchQueue(label: "peerd.lane.read", qos: .userInitiated)
    private let descriptor: FileDescriptor
    private let deliver: @MainActor @Sendable (Report) -> Void

    /// Starts reading a copy of `socket` with `cipher`; `unread` are bytes
    /// the handshake's reads took past its last frame. `deliver` gets each
    /// report on the main actor, in order.
    init(socket: FileDescriptor, cipher: NoiseCipherState, unread: [UInt8], deliver: @escaping @MainActor @Sendable (Report) -> Void) throws(SystemError) {
        let copy = try Syscall.call("dup", "the bulk lane's socket") { dup(socket.rawValue) }
        descriptor = FileDescriptor(rawValue: copy)
        self.deliver = deliver
        work = Mutex(Work(cipher: cipher, carry: unread))
        let (descriptor, queue) = (descriptor, queue)
        shared.withLock { state in
            let source = DispatchSource.makeReadSource(fileDescriptor: copy, queue: queue)
            source.setEventHandler { [weak self] in self.map { reader in BulkThread.run { reader.readOnce() } } }
            source.setCancelHandler { descriptor.close() }
            state.source = source
            source.resume()
        }
        // Bytes the handshake left may hold whole frames already.
        if !unread.isEmpty { queue.async { [weak self] in self?.readOnce(socket: false) } }
    }

    /// Stops reading and closes its descriptor (on its queue, once the
    /// source is cancelled).
    func stop() {
        shared.withLock { state in
            guard !state.stopped else { return }
            state.stopped = true
            if state.suspended { state.source?.resume() }
            state.source?.cancel()
            state.source = nil
            state.free = []
        }
    }

    /// The main actor is done with `batch`: its buffer is reused, and
    /// reading resumes if it had stopped for it.
    func done(with batch: consuming Batch) {
        let buffer = batch.buffer
        shared.withLock { state in
            state.outstanding -= buffer.count
            guard !state.stopped else { return }
            if state.free.count < Self.keptBuffers { state.free.append(buffer) }
            if state.suspended, state.outstanding <= Self.outstandingLimit / 2 {
                state.suspended = false
                state.source?.resume()
            }
        }
    }

    /// Once a tick: buffers not needed since the last tick go.
    func settle() {
        shared.withLock { state in
            if !state.busy { state.free = [] }
            state.busy = false
        }
    }

    /// What one read came to.
    private enum Outcome {
        /// Nothing whole yet: the buffer goes back.
        case nothing([UInt8], filled: Bool)
        case batch(Batch, filled: Bool)
        case ended(String, corrupt: Bool)
    }

    /// One read, its frames opened, one batch to the main actor.
    private func readOnce(socket: Bool = true) {
        guard let spare = shared.withLock({ state -> [UInt8]? in state.stopped ? nil : (state.free.popLast() ?? []) }) else { return }
        let outcome = work.withLock { work in read(into: spare, socket: socket, &work) }
        let report: Report? = shared.withLock { state in
            switch outcome {
            case .nothing(let buffer, let filled):
                if filled { state.busy = true }
                if !state.stopped { state.free.append(buffer) }
                return nil
            case .batch(let batch, let filled):
                if filled { state.busy = true }
                state.outstanding += batch.cost
                if state.outstanding > Self.outstandingLimit, !state.suspended, !state.stopped {
                    state.suspended = true
                    state.source?.suspend()
                }
                return .batch(batch)
            case .ended(let why, let corrupt):
                return .ended(why, corrupt: corrupt)
            }
        }
        guard let report else { return }
        if case .ended = report { stop() }
        let deliver = deliver
        DispatchQueue.main.async { MainActor.assumeIsolated { deliver(report) } }
    }

    /// Reads into `spare` (after the carried bytes) and opens the whole frames there.
    private func read(into spare: [UInt8], socket: Bool, _ work: inout Work) -> Outcome {
        var buffer = spare.isEmpty ? [UInt8](repeating: 0, count: Self.readSize + Self.carryRoom) : spare
        let carried = work.carry.count
        buffer.replaceSubrange(0..<carried, with: work.carry)
        var end = carried
        var filled = false
        if socket {
            let count: Int?
            do {
                count = try buffer.withUnsafeMutableBytes { raw in
                    try descriptor.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[carried..<(carried + Self.readSize)]))
                }
            } catch {
                return .ended("\(error)", corrupt: false)
            }
            guard let count else { return .nothing(buffer, filled: false) }
            guard count > 0 else { return .ended("the connection was closed", corrupt: false) }
            filled = count == Self.readSize
            end += count
        }
        var frames: [Range<Int>] = []
        var position = 0
        // Moved out, not copied: a copy would share, and so not reuse, its context.
        var cipher = NoiseCipherState()
        swap(&cipher, &work.cipher)
        let failure: String? = buffer.withUnsafeMutableBytes { raw in
            while end - position >= 2 {
                let length = Int(raw[position]) << 8 | Int(raw[position + 1])
                guard length > 0 else { return "a lane frame of length 0" }
                guard end - position >= 2 + length else { break }
                let frame = UnsafeMutableRawBufferPointer(rebasing: raw[(position + 2)..<(position + 2 + length)])
                guard let count = try? cipher.openInPlace(frame) else { return "a lane frame did not open" }
                frames.append((position + 2)..<(position + 2 + count))
                position += 2 + length
            }
            return nil
        }
        swap(&cipher, &work.cipher)
        if let failure { return .ended(failure, corrupt: true) }
        work.carry = Array(buffer[position..<end])
        guard !frames.isEmpty else { return .nothing(buffer, filled: filled) }
        return .batch(Batch(buffer: buffer, frames: frames), filled: filled)
    }
}
