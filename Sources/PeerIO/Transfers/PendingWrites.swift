import Dispatch
import Synchronization

/// Received chunks waiting for the writer's thread (``PartialFile/writer``),
/// which takes every one waiting in a single job (issue 44): one wake of
/// the writer, one change of its priority (``BulkThread``) and one turn
/// of the main actor for their outcomes, instead of one each per 64 KiB
/// chunk. Measured: a 1 GiB send-file's receiver switched threads some
/// 140,000 times with a job a chunk, most of its system time.
///
/// Order is kept: jobs run in the order added, and a job added after a
/// drain took the list schedules the next drain on the same serial queue,
/// ahead of anything queued there later (a block's record, a file's end).
/// Bounded by the receive windows: a chunk is added only within credit,
/// and credit goes back only once it is written.
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

    private struct Waiting: ~Copyable {
        var jobs: [Job] = []
        /// Whether a drain is queued and has not taken the list yet.
        var scheduled = false
    }

    private static let waiting = Mutex(Waiting())

    /// Queues `job`; its `done` runs on the main actor, in order.
    static func add(_ job: Job) {
        let schedule = waiting.withLock { waiting in
            waiting.jobs.append(job)
            defer { waiting.scheduled = true }
            return !waiting.scheduled
        }
        if schedule { PartialFile.writer.async { drain() } }
    }

    /// Writes every job waiting, then reports them all in one main-actor turn.
    private static func drain() {
        let jobs = waiting.withLock { waiting in
            waiting.scheduled = false
            var taken: [Job] = []
            swap(&taken, &waiting.jobs)
            return taken
        }
        guard !jobs.isEmpty else { return }
        let failures: [SystemError?] = BulkThread.run {
            jobs.map { job in
                let outcome = job.bytes.withUnsafeBytes { raw in
                    Result { () throws(SystemError) in try job.file.write(raw, at: job.offset) }
                }
                WriteBuffers.giveBack(job.bytes)
                if case .failure(let error) = outcome { return error }
                return nil
            }
        }
        DispatchQueue.main.async {
            MainActor.assumeIsolated {
                for (job, failure) in zip(jobs, failures) { job.done(failure) }
            }
        }
    }
}
