import Dispatch

/// A serial executor over one `DispatchQueue` (issue 43, point 2): an
/// actor that names it as its executor runs its jobs on that queue, and
/// code already on the queue (a `queue.sync`, a poller's batch handed to
/// it) is its isolation, which `assumeIsolated` checks through
/// ``checkIsolated()``. So a lane keeps its queue, and the compiler, not a
/// comment, checks that its state is touched there alone.
/// (libdispatch on Linux has no `DispatchSerialQueue` executor of its own.)
final class QueueExecutor: SerialExecutor {
    /// The queue every job runs on.
    let queue: DispatchQueue

    /// An executor over a new serial queue.
    init(label: String, qos: DispatchQoS = .default) {
        queue = DispatchQueue(label: label, qos: qos)
    }

    /// Runs `job` on the queue, after what is queued there.
    func enqueue(_ job: consuming ExecutorJob) {
        let job = UnownedJob(job)
        let executor = asUnownedSerialExecutor()
        queue.async { job.runSynchronously(on: executor) }
    }

    /// Stops the process unless the caller runs on the queue: what makes
    /// `assumeIsolated` hold inside a `queue.sync`.
    func checkIsolated() {
        dispatchPrecondition(condition: .onQueue(queue))
    }
}
