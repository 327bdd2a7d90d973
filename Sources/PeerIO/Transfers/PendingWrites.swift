import Dispatch
import Synchronization

/// Received chunks waiting for the writer's thread (``PartialFile/writer``),
/// which takes every one waiting in a single job (issue 44): one wake of
/// the writer, one change of its priority (``BulkThread``) and one turn
/// of the main actor for their outcomes, instead of one each per 64 KiB
/// chunk. Measured: a 1 GiB send-file's receiver switched threads some
/// 140,000 times with a job a chunk, most of its system time.
///
/// Order is kept, exactly: a block's record waits here too, as a step
/// (``addStep(_:)``), between its block's chunks and the next block's, so
/// the writer never writes a later block's bytes before an earlier
/// block's record. (When records went to the writer's queue on their own,
/// a drain that took the list could carry several blocks' chunks ahead of
/// a record; with a stage written out at each record, a receiver killed
/// then had 2.5 blocks on disk past its last record, which a resume
/// receives again: the lab's bound is one.) Jobs run in the order added,
/// and a job added after a drain took the list schedules the next drain
/// on the same serial queue, ahead of anything queued there later (a
/// file's end). Bounded by the receive windows: a chunk is added only
/// within credit, and credit goes back only once it is written.
enum PendingWrites {
    /// One chunk to write.
    struct Job: Sendable {
        /// The file the chunk belongs to.
        let file: PartialFile
        /// The chunk's bytes, copied for the writer (``WriteBuffers``).
        let bytes: BulkBuffer
        /// Where in the file they go.
        let offset: Int64
        /// Gets the error, if any, on the main actor.
        let done: @MainActor @Sendable (SystemError?) -> Void
    }

    /// What waits for the writer, in order.
    private enum Entry: Sendable {
        /// A chunk to write.
        case write(Job)
        /// A step that comes after the chunks before it and before those
        /// after it (a block's record); it reports on its own.
        case step(@Sendable () -> Void)
    }

    private struct Waiting: ~Copyable {
        var entries: [Entry] = []
        /// Whether a drain is queued and has not taken the list yet.
        var scheduled = false
    }

    private static let waiting = Mutex(Waiting())

    /// Queues `job`; its `done` runs on the main actor, in order.
    static func add(_ job: Job) {
        enqueue(.write(job))
    }

    /// Queues `step` to run on the writer after every chunk added before
    /// it is written (and their outcomes are on their way to the main
    /// actor), and before any chunk added after it.
    static func addStep(_ step: @escaping @Sendable () -> Void) {
        enqueue(.step(step))
    }

    private static func enqueue(_ entry: Entry) {
        let schedule = waiting.withLock { waiting in
            waiting.entries.append(entry)
            defer { waiting.scheduled = true }
            return !waiting.scheduled
        }
        if schedule { PartialFile.writer.async { drain() } }
    }

    /// Writes every chunk waiting and runs every step, in order; reports
    /// the chunks' outcomes in one main-actor turn (before each step, so
    /// what a step reports comes after them).
    private static func drain() {
        let entries = waiting.withLock { waiting in
            waiting.scheduled = false
            var taken: [Entry] = []
            swap(&taken, &waiting.entries)
            return taken
        }
        guard !entries.isEmpty else { return }
        BulkThread.run {
            var written: [(Job, SystemError?)] = []
            for entry in entries {
                switch entry {
                case .write(let job):
                    let outcome = job.bytes.withUnsafeBytes { raw in
                        Result { () throws(SystemError) in try job.file.write(raw, at: job.offset) }
                    }
                    WriteBuffers.giveBack(job.bytes)
                    if case .failure(let error) = outcome { written.append((job, error)) } else { written.append((job, nil)) }
                case .step(let step):
                    report(written)
                    written = []
                    step()
                }
            }
            report(written)
        }
    }

    /// Hands written chunks' outcomes to the main actor, in order.
    private static func report(_ written: [(Job, SystemError?)]) {
        guard !written.isEmpty else { return }
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                for (job, failure) in written { job.done(failure) }
            }
        }
    }
}
