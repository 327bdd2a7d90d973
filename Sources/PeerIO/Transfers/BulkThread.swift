import Glibc

/// The bulk lanes' threads (sealing, hashing, writing a transfer's bytes)
/// step back for latency: each job first sets its thread's nice value to
/// ``nice``, so that on cores the bulk work saturates, the threads that
/// carry small things (the main actor, the datagram engine's poller)
/// run first when both are ready. An unprivileged daemon may always lower
/// a thread's priority; it may not raise one, so this is the only
/// direction open under the service's sandbox (no capabilities).
/// Throughput is unchanged where a core is idle; where none is, bulk
/// waits its turn, which is the point.
enum BulkThread {
    /// The nice value of a thread doing bulk work.
    static let nice: Int32 = 5

    /// Lowers the calling thread's priority to ``nice`` (a system call;
    /// a failure changes nothing, and nothing depends on it). On Linux a
    /// nice value is a thread's, and `who` 0 names the calling thread.
    static func stepBack() {
        _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, nice)
    }
}
