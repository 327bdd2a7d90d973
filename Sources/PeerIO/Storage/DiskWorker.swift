import Dispatch
import Synchronization

/// Keeps `State` (files and what is known of them) on its own serial
/// queue, off the main actor: every job runs there, one at a time, in the
/// order it was submitted, and its answer comes back on the main actor, in
/// the same order. A slow `fsync` or a 64 MiB rewrite then delays only the
/// jobs behind it, never a control client or a session.
///
/// `State` is touched only by jobs, and jobs run only on the queue. The
/// compiler checks the hand-off (issue 43, point 2): the worker takes
/// `state` as `sending` (no one else keeps it), and holds it in a `Mutex`,
/// which the queue's jobs take one at a time (never contended: the queue
/// is serial), so the worker is `Sendable` without an unchecked claim.
package final class DiskWorker<State>: Sendable {
    private let queue: DispatchQueue
    private let state: Mutex<State>

    /// A worker that owns `state`; `label` names its queue (for debuggers).
    package init(label: String, state: sending State) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.state = Mutex(state)
    }

    /// Runs `job` on the worker's queue, then `done` with its answer on the
    /// main actor.
    package func run<Answer: Sendable>(_ job: @escaping @Sendable (inout State) -> Answer,
                                      then done: @escaping @MainActor @Sendable (Answer) -> Void) {
        queue.async {
            let answer = self.state.withLock { job(&$0) }
            DispatchQueue.main.async { MainActor.assumeIsolated { done(answer) } }
        }
    }

    /// Runs `job` on the worker's queue and waits for it: for start-up and
    /// shutdown only, and for tests.
    package func runAndWait<Answer: Sendable>(_ job: (inout State) -> Answer) -> Answer {
        queue.sync { state.withLock { job(&$0) } }
    }
}
