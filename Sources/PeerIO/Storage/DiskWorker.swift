import Dispatch

/// Keeps `State` (files and what is known of them) on its own serial
/// queue, off the main actor: every job runs there, one at a time, in the
/// order it was submitted, and its answer comes back on the main actor, in
/// the same order. A slow `fsync` or a 64 MiB rewrite then delays only the
/// jobs behind it, never a control client or a session.
///
/// `State` is touched only by jobs, and jobs run only on the queue: that
/// confinement is what makes the unchecked `Sendable` sound.
package final class DiskWorker<State>: @unchecked Sendable {
    private let queue: DispatchQueue
    private var state: State

    /// A worker that owns `state`; `label` names its queue (for debuggers).
    package init(label: String, state: State) {
        queue = DispatchQueue(label: label, qos: .utility)
        self.state = state
    }

    /// Runs `job` on the worker's queue, then `done` with its answer on the
    /// main actor.
    package func run<Answer: Sendable>(_ job: @escaping @Sendable (inout State) -> Answer,
                                      then done: @escaping @MainActor @Sendable (Answer) -> Void) {
        queue.async {
            let answer = job(&self.state)
            DispatchQueue.main.async { MainActor.assumeIsolated { done(answer) } }
        }
    }

    /// Runs `job` on the worker's queue and waits for it: for start-up and
    /// shutdown only, and for tests.
    package func runAndWait<Answer>(_ job: (inout State) -> Answer) -> Answer {
        queue.sync { job(&state) }
    }
}
