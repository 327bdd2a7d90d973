import Dispatch
import PeerCore
import Synchronization

/// The sending cipher of one session and the thread its large frames are
/// made on (issue 25, point 2): a file chunk is read, hashed and sealed
/// here, off the main actor, which meanwhile reads, opens and answers.
///
/// Jobs run one at a time, in the order queued, and each seals with the
/// next nonce as it runs, so frames reach the socket in nonce order
/// whichever thread sealed them: ``PeerSession`` seals a small frame in
/// place (``sealNow(_:count:)``) only while no job is queued or running,
/// and otherwise queues it behind them. Results come back to the main
/// actor in the order the jobs ran (one serial queue posting to the one
/// main queue).
///
/// The cipher is behind a `Mutex` the compiler checks. It is touched by
/// the job running on `queue`, or by ``sealNow(_:count:)``, which the
/// owner calls only when it has counted every job's result back on the
/// main actor, so the lock is never contended: it costs one uncontended
/// lock and unlock per frame, beside sealing up to 64 KiB.
final class SealLane: Sendable {
    /// What a job came to, on the main actor.
    enum Outcome: Sendable {
        /// The frame, length prefix and tag written, to be queued as it is.
        case sealed([UInt8])
        /// The frame was sealed and written to the socket here
        /// (``LaneSocketWriter``); its buffer comes back for reuse.
        case sent([UInt8])
        /// Work alone, done: no frame.
        case done
        /// The job's maker said nothing is to be sent (its own failure,
        /// which it recorded).
        case dropped
        /// The cipher failed: the session ends.
        case failed(NoiseError)
    }

    /// How a job makes its frame's plaintext, on the lane.
    enum Make: Sendable {
        /// The plaintext is in place at offset 2 already: `count` bytes.
        case ready(count: Int)
        /// `fill` writes up to the frame's room into it and says how many
        /// bytes (nil: send nothing); a frame of no room is work alone.
        case fill(@Sendable (UnsafeMutableRawBufferPointer) -> Int?)
        /// `build` returns the plaintext (nil: send nothing): a message
        /// whose bytes depend on work queued before it (a block's hash).
        case build(@Sendable () -> [UInt8]?)
    }

    /// The threads lanes run on: Dispatch's pool, as wide as the cores.
    private static let pool = DispatchQueue(label: "peerd.seal", qos: .userInitiated, attributes: .concurrent)

    private let cipher: Mutex<NoiseCipherState>
    private let queue = DispatchQueue(label: "peerd.seal.session", target: SealLane.pool)
    /// Whether its jobs step back (``BulkThread``): a bulk lane's do, since
    /// only bulk waits on them there; a session's do not (below).
    private let background: Bool
    /// Where a bulk lane's frames are written as soon as they are sealed,
    /// on this thread; nil for a session's, whose frames go back to the
    /// main actor's transport.
    private let writer: LaneSocketWriter?
    /// Jobs queued or running (a bulk lane's: see ``report(_:_:last:)``).
    private let queued = Atomic<Int>(0)
    /// A bulk lane's outcomes not yet handed to the main actor, in order,
    /// and whether a turn is posted to take them.
    private let inbox = Mutex<(outcomes: [(Outcome, @MainActor @Sendable (Outcome) -> Void)], posted: Bool)>(([], false))
    /// A bulk lane's jobs not yet run, in order, and whether a turn of its
    /// queue is posted to run them (``runWaiting()``).
    private let waiting = Mutex<(jobs: [(Job, Make, @MainActor @Sendable (Outcome) -> Void)], posted: Bool)>(([], false))
    /// A bulk lane's outcomes go to the main actor in groups of this many
    /// (or sooner, below): a quarter of its 1 MiB of room in 64 KiB frames.
    static let reportEvery = 4

    /// A lane for a connection's sending cipher (after the handshake);
    /// `writer` for a bulk lane's, whose jobs also step back (``BulkThread``)
    /// since only bulk waits on them there.
    init(cipher: NoiseCipherState, writer: LaneSocketWriter? = nil) {
        self.cipher = Mutex(cipher)
        self.writer = writer
        background = writer != nil
    }

    /// Seals the `count` plaintext bytes at offset 2 of `frame` now, on the
    /// caller's thread, and writes the length prefix. Only while no job is
    /// queued or running (the caller counts them).
    func sealNow(_ frame: inout [UInt8], count: Int) throws(NoiseError) {
        try cipher.withLock { cipher throws(NoiseError) in try cipher.sealInPlace(&frame, offset: 2, count: count) }
        Self.writeLength(&frame, count: count)
    }

    /// Queues a job: on the lane, after every job before it, the plaintext
    /// is made into `frame` (2 bytes of prefix, the room, 16 of tag) and
    /// sealed; `done` gets the outcome on the main actor.
    func run(_ frame: consuming [UInt8], _ make: Make, done: @escaping @MainActor @Sendable (Outcome) -> Void) {
        let job = Job(frame: frame)
        // At the normal priority, unlike the receiver's hasher and writer
        // (``BulkThread``): the stream waits on this lane (one bulk frame
        // in flight), so stepping it back slowed the transfer itself, by
        // 8 to 18% for a pipe on two shared cores, and the round trips
        // beside it measured the same either way (docs/performance.md).
        queued.add(1, ordering: .relaxed)
        guard background else {
            return queue.async { [self] in
                let outcome = perform(job, make)
                queued.subtract(1, ordering: .relaxed)
                DispatchQueue.main.async { MainActor.assumeIsolated { done(outcome) } }
            }
        }
        let post = waiting.withLock { waiting in
            waiting.jobs.append((job, make, done))
            defer { waiting.posted = true }
            return !waiting.posted
        }
        if post { queue.async { [self] in runWaiting() } }
    }

    /// A bulk lane's jobs, run while any wait, in one turn of its queue
    /// and one step back of its thread (``BulkThread``): a turn a job cost
    /// a block, a wake and two priority changes per 64 KiB frame.
    private func runWaiting() {
        BulkThread.run {
            while let (job, make, done) = waiting.withLock({ waiting -> (Job, Make, @MainActor @Sendable (Outcome) -> Void)? in
                guard !waiting.jobs.isEmpty else {
                    waiting.posted = false
                    return nil
                }
                return waiting.jobs.removeFirst()
            }) {
                let outcome = perform(job, make)
                let left = queued.subtract(1, ordering: .relaxed).newValue
                report(outcome, done, last: left == 0)
            }
        }
    }

    /// A bulk lane's outcome: its frame is on the socket already, so the
    /// main actor only hears that room came back, and hears it in groups
    /// (issue 44): a turn of the main actor per 64 KiB frame was a thread
    /// wake each, across cores (some 17 µs here), on both daemons. A group
    /// goes when it has ``reportEvery`` outcomes, when no job is left (so
    /// the sender never idles waiting for a report), or at a failure.
    private func report(_ outcome: Outcome, _ done: @escaping @MainActor @Sendable (Outcome) -> Void, last: Bool) {
        let failed = if case .failed = outcome { true } else { false }
        let post = inbox.withLock { inbox in
            inbox.outcomes.append((outcome, done))
            guard !inbox.posted, last || failed || inbox.outcomes.count >= Self.reportEvery else { return false }
            inbox.posted = true
            return true
        }
        guard post else { return }
        DispatchQueue.main.async { [self] in
            let outcomes = inbox.withLock { inbox in
                inbox.posted = false
                var taken: [(Outcome, @MainActor @Sendable (Outcome) -> Void)] = []
                swap(&taken, &inbox.outcomes)
                return taken
            }
            MainActor.assumeIsolated {
                for (outcome, done) in outcomes { done(outcome) }
            }
        }
    }

    private func perform(_ job: Job, _ make: Make) -> Outcome {
        job.frame.withLock { frame in
            let tag = NoiseCipherState.tagLength
            let count: Int
            switch make {
            case .ready(let ready):
                count = ready
            case .fill(let fill):
                // Work alone has no frame at all (and no room to rebase into).
                guard !frame.isEmpty else { return fill(UnsafeMutableRawBufferPointer(start: nil, count: 0)) == nil ? .dropped : .done }
                let room = frame.count - 2 - tag
                guard let filled = frame.withUnsafeMutableBytes({ fill(UnsafeMutableRawBufferPointer(rebasing: $0[2..<(2 + room)])) }),
                      filled <= room else { return .dropped }
                frame.removeLast(room - filled)
                count = filled
            case .build(let build):
                guard let plaintext = build() else { return .dropped }
                frame = [0, 0] + plaintext + [UInt8](repeating: 0, count: tag)
                count = plaintext.count
            }
            do throws(NoiseError) {
                try cipher.withLock { cipher throws(NoiseError) in try cipher.sealInPlace(&frame, offset: 2, count: count) }
            } catch {
                return .failed(error)
            }
            Self.writeLength(&frame, count: count)
            // Moved out whole: the buffer goes to the socket uncopied.
            var out: [UInt8] = []
            swap(&out, &frame)
            guard let writer else { return .sealed(out) }
            if let failure = writer.write(out) { return .failed(.payload(failure)) }
            return .sent(out)
        }
    }

    private static func writeLength(_ frame: inout [UInt8], count: Int) {
        let length = count + NoiseCipherState.tagLength
        frame[0] = UInt8(length >> 8)
        frame[1] = UInt8(length & 0xFF)
    }

    /// A frame on its way through the lane: made on the main actor, filled
    /// and sealed on the lane, and moved out whole, so the 64 KiB buffer
    /// is never copied on write. The `Mutex` makes the hand-over one the
    /// compiler checks; nothing else holds it, so it is never contended.
    private final class Job: Sendable {
        let frame: Mutex<[UInt8]>
        init(frame: consuming [UInt8]) { self.frame = Mutex(frame) }
    }
}
