import Dispatch
import Glibc
import PeerCore
import PeerSystem
import Synchronization

/// A bulk lane's receiving half, off the main actor (issue 44, point 3):
/// the lanes' thread (``LanePoller``, at nice ``BulkThread/nice``) reads the lane's socket,
/// cuts frames and opens them in place, and hands the main actor batches
/// of plaintexts, one main-queue turn per read. The main actor then only
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
/// when it stops, in the poller's turn (never under a read): the lane's
/// transport keeps writing on the other, and neither ever waits for the
/// other to close.
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
        let buffer: BulkBuffer
        /// The plaintexts, in order.
        let frames: [Range<Int>]
        /// Its bytes, counted against ``outstandingLimit``.
        let cost: Int

        /// Runs `body` on the buffer's bytes (each frame is a range of them).
        func withBytes<Result: Sendable>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
            buffer.withUnsafeBytes(body)
        }
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
    /// the poller's queue takes it).
    private struct Work: ~Copyable {
        var cipher: NoiseCipherState
        /// The start of a frame not yet whole, carried to the next read.
        var carry: [UInt8]
    }

    /// What the main actor and the reader share, each briefly.
    private struct Shared: ~Copyable {
        /// Whether the socket is left unwatched until the main actor takes
        /// batches (the reader's backpressure).
        var suspended = false
        var outstanding = 0
        var free: [BulkBuffer] = []
        var stopped = false
        /// Whether a read filled a buffer since the last ``settle()``.
        var busy = false
    }

    private let work: Mutex<Work>
    private let shared = Mutex(Shared())
    private let poller: LanePoller
    /// The socket's registration with the poller (0 until made).
    private let token: Mutex<UInt64> = Mutex(0)
    private let descriptor: FileDescriptor
    private let deliver: @MainActor @Sendable (Report) -> Void
    /// Reports not yet taken by the main actor, in order, and whether a
    /// turn is posted to take them (``report(_:)``).
    private let inbox = Mutex<(reports: [Report], posted: Bool)>(([], false))

    /// Starts reading a copy of `socket` with `cipher`; `unread` are bytes
    /// the handshake's reads took past its last frame. `deliver` gets each
    /// report on the main actor, in order.
    init(socket: FileDescriptor, cipher: NoiseCipherState, unread: [UInt8], poller: LanePoller,
         deliver: @escaping @MainActor @Sendable (Report) -> Void) throws(SystemError) {
        let copy = try Syscall.call("dup", "the bulk lane's socket") { dup(socket.rawValue) }
        descriptor = FileDescriptor(rawValue: copy)
        self.poller = poller
        self.deliver = deliver
        work = Mutex(Work(cipher: cipher, carry: unread))
        // Bytes the handshake left may hold whole frames already: read
        // first, in the poller's turn, before the socket is watched.
        poller.queue.async { [weak self] in
            guard let self else { return }
            if !unread.isEmpty { readOnce(socket: false) }
            do {
                let token = try poller.watch(descriptor) { [weak self] in self?.readable() }
                self.token.withLock { $0 = token }
            } catch {
                report(.ended("the lane's socket cannot be watched: \(error)", corrupt: false))
            }
        }
    }

    deinit { stop() }

    /// The socket is readable (on the poller's thread): one read, then
    /// watch again unless the reader now waits for the main actor.
    private func readable() {
        readOnce()
        if shared.withLock({ !$0.stopped && !$0.suspended }) { poller.rearm(descriptor, token: token.withLock { $0 }) }
    }

    /// Stops reading and closes its descriptor (in the poller's turn, so
    /// never under a read).
    func stop() {
        let stopping = shared.withLock { state in
            defer { state.stopped = true; state.free = [] }
            return !state.stopped
        }
        guard stopping else { return }
        let (poller, descriptor) = (poller, descriptor)
        poller.queue.async {
            poller.forget(descriptor)
            descriptor.close()
        }
    }

    /// The main actor is done with `batch`: its buffer is reused, and
    /// reading resumes if it had stopped for it.
    func done(with batch: Batch) {
        let (buffer, cost) = (batch.buffer, batch.cost)
        let resume = shared.withLock { state in
            state.outstanding -= cost
            guard !state.stopped else { return false }
            if state.free.count < Self.keptBuffers { state.free.append(buffer) }
            guard state.suspended, state.outstanding <= Self.outstandingLimit / 2 else { return false }
            state.suspended = false
            return true
        }
        if resume { poller.rearm(descriptor, token: token.withLock { $0 }) }
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
        case nothing(BulkBuffer, filled: Bool)
        case batch(Batch, filled: Bool)
        case ended(String, corrupt: Bool)
    }

    /// One read, its frames opened, one batch to the main actor.
    private func readOnce(socket: Bool = true) {
        guard let spare = shared.withLock({ state -> BulkBuffer? in
            state.stopped ? nil : (state.free.popLast() ?? BulkBuffer())
        }) else { return }
        let outcome = work.withLock { work in read(into: spare, socket: socket, &work) }
        let report: Report? = shared.withLock { state in
            switch outcome {
            case .nothing(let buffer, let filled):
                if filled { state.busy = true }
                if !state.stopped { state.free.append(buffer) }
                return nil
            case .batch(let batch, _):
                state.busy = true
                state.outstanding += batch.cost
                if state.outstanding > Self.outstandingLimit, !state.stopped { state.suspended = true }
                return .batch(batch)
            case .ended(let why, let corrupt):
                return .ended(why, corrupt: corrupt)
            }
        }
        guard let report else { return }
        self.report(report)
    }

    /// Hands `report` to the main actor; an end stops the reader first.
    ///
    /// Reports wait in an inbox, and one main-actor turn takes all that
    /// wait when it runs: a turn posted a read woke the main thread once
    /// per 64 KiB frame (issue 44).
    private func report(_ report: Report) {
        if case .ended = report { stop() }
        let post = inbox.withLock { inbox in
            inbox.reports.append(report)
            defer { inbox.posted = true }
            return !inbox.posted
        }
        guard post else { return }
        DispatchQueue.main.async { [self] in
            let reports = inbox.withLock { inbox in
                inbox.posted = false
                var taken: [Report] = []
                swap(&taken, &inbox.reports)
                return taken
            }
            MainActor.assumeIsolated {
                for report in reports { deliver(report) }
            }
        }
    }

    /// Reads into `spare` (after the carried bytes) and opens the whole frames there.
    private func read(into spare: BulkBuffer, socket: Bool, _ work: inout Work) -> Outcome {
        let descriptor = socket ? descriptor : nil
        let read = spare.withBytes { buffer in
            if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: Self.readSize + Self.carryRoom) }
            return Self.read(into: &buffer, from: descriptor, &work)
        }
        switch read {
        case .ended(let why, let corrupt): return .ended(why, corrupt: corrupt)
        case .frames(let frames, let filled) where frames.isEmpty: return .nothing(spare, filled: filled)
        case .frames(let frames, let filled):
            return .batch(Batch(buffer: spare, frames: frames, cost: Self.readSize + Self.carryRoom), filled: filled)
        }
    }

    /// What a read into a buffer found.
    private enum Read {
        /// The plaintexts' ranges, and whether the read filled its room.
        case frames([Range<Int>], filled: Bool)
        case ended(String, corrupt: Bool)
    }

    /// Copies the carried bytes to the start of `buffer`, reads after them
    /// (when `socket` is given), opens every whole frame in place and
    /// carries what is left of the last.
    private static func read(into buffer: inout [UInt8], from socket: FileDescriptor?, _ work: inout Work) -> Read {
        let carried = work.carry.count
        var end = carried
        var filled = false
        var count: Int? = 0
        var failure: String?
        buffer.withUnsafeMutableBytes { raw in
            work.carry.withUnsafeBytes { carry in
                if carried > 0 { raw.baseAddress!.copyMemory(from: carry.baseAddress!, byteCount: carried) }
            }
            guard let socket else { return }
            do {
                count = try socket.read(into: UnsafeMutableRawBufferPointer(rebasing: raw[carried..<(carried + readSize)]))
            } catch {
                failure = "\(error)"
            }
        }
        if let failure { return .ended(failure, corrupt: false) }
        guard let count else { return .frames([], filled: false) }
        if socket != nil {
            guard count > 0 else { return .ended("the connection was closed", corrupt: false) }
            filled = count == readSize
            end += count
        }
        var frames: [Range<Int>] = []
        var position = 0
        // Moved out, not copied: a copy would share, and so not reuse, its context.
        var cipher = NoiseCipherState()
        swap(&cipher, &work.cipher)
        let corrupt: String? = buffer.withUnsafeMutableBytes { raw in
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
        if let corrupt { return .ended(corrupt, corrupt: true) }
        // The carry keeps its storage: a fresh one of up to a frame's size
        // would be mapped anew on every read.
        work.carry.removeAll(keepingCapacity: true)
        buffer.withUnsafeBytes { raw in work.carry.append(contentsOf: UnsafeRawBufferPointer(rebasing: raw[position..<end])) }
        return .frames(frames, filled: filled)
    }
}
