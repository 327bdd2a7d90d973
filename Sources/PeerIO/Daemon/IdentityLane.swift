/// The one ordered conversation with the ``IdentityActor``: every job that
/// asks the actor something and applies its answer (an Avahi event, a
/// session to adopt, an endpoint to refuse) runs here, one at a time, in
/// the order it was submitted.
///
/// Without it, two main-actor tasks awaiting the actor could resume in
/// either order, and the read model (``PeerDirectory``) could apply an
/// older row over a newer one. With it, rows reach the read model in the
/// order the actor made them.
@MainActor
package final class IdentityLane {
    /// One job: awaits the actor, then applies what it answered.
    package typealias Job = @MainActor @Sendable () async -> Void

    private let jobs: AsyncStream<Job>
    private let continuation: AsyncStream<Job>.Continuation

    /// An empty lane; nothing runs until ``run()``.
    package init() {
        // Unbounded in count, bounded in practice: Avahi's events are capped
        // by the resolver limit, sessions by the session caps.
        (jobs, continuation) = AsyncStream.makeStream(of: Job.self, bufferingPolicy: .unbounded)
    }

    /// Queues `job` behind every job submitted before it.
    package func submit(_ job: @escaping Job) {
        continuation.yield(job)
    }

    /// Runs the jobs in order until ``finish()``.
    package func run() async {
        for await job in jobs { await job() }
    }

    /// Ends ``run()`` once the jobs already queued are done.
    package func finish() {
        continuation.finish()
    }
}
