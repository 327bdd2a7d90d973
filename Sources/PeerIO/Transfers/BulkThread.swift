import Glibc

/// The bulk lanes' jobs (sealing, hashing, writing a transfer's bytes)
/// step back for latency: each runs at nice ``nice`` on its thread and
/// puts the thread's priority back after, so that on cores the bulk work
/// saturates, the threads that carry small things (the main actor, the
/// datagram engine's poller) run first when both are ready, and the
/// shared Dispatch threads the jobs borrow (which also run the actors'
/// jobs) go back to the pool as they came.
///
/// Lowering a thread's priority needs no privilege. Putting it back needs
/// `RLIMIT_NICE` to allow nice 0 (the service sets `LimitNICE=+0`, which
/// permits nothing above the normal priority) or root; where neither
/// holds, the job still runs, and the thread stays at nice 5.
enum BulkThread {
    /// The nice value of a thread doing bulk work.
    static let nice: Int32 = 5

    private static let which = __priority_which_t(PRIO_PROCESS.rawValue)

    /// Runs `body` at nice ``nice`` on the calling thread (on Linux a nice
    /// value is a thread's, and `who` 0 names the calling thread), then
    /// puts the thread's own value back. Failures change nothing else.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        errno = 0
        let before = getpriority(which, 0)
        let known = errno == 0
        let lowered = known && before < nice && setpriority(which, 0, nice) == 0
        defer { if lowered { _ = setpriority(which, 0, before) } }
        return try body()
    }
}
