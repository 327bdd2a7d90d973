import Glibc
import PeerSystem
import Synchronization

/// A received transfer's jobs (hashing and writing its bytes) step back
/// for latency: each runs at nice ``nice`` on its thread and
/// puts the thread's priority back after, so that on cores the bulk work
/// saturates, the threads that carry small things (the main actor, the
/// datagram engine's poller) run first when both are ready, and the
/// shared Dispatch threads the jobs borrow (which also run the actors'
/// jobs) go back to the pool as they came. The sender's seal lane does
/// not step back: its transfer waits on it (``SealLane``).
///
/// Lowering a thread's priority needs no privilege. Putting it back needs
/// `RLIMIT_NICE` to allow nice 0 (the service sets `LimitNICE=+0`, which
/// permits nothing above the normal priority) or `CAP_SYS_NICE`; and a
/// system call filter may refuse `setpriority` itself (systemd's
/// `@resources` group; the unit lets it back in). So the daemon tries
/// both once, on a thread of its own (``refusal``): where either fails,
/// bulk jobs run at the normal priority, and no shared thread is ever left
/// at nice ``nice``.
package enum BulkThread {
    /// The nice value of a thread doing bulk work. 10, not 5 (issue 44,
    /// measured A B on the two-core lab, 1 GiB, two runs each): at 10
    /// the main actors that route the bulk run as soon as they wake, and
    /// send-file went 348 -> 365-376 MiB/s, the pipe 529 -> 513-569, the
    /// round trips beside them about the same or lower (within this
    /// machine's spread). 19 measured the same as 10, but would leave a
    /// transfer under 2% of a core beside one busy program at nice 0;
    /// 10 leaves it about 10%.
    static let nice: Int32 = 10

    fileprivate static let which = __priority_which_t(PRIO_PROCESS.rawValue)

    /// Why bulk jobs cannot step back here, or nil when they can: found
    /// once, at first use, by lowering a throwaway thread to nice
    /// ``nice`` and putting it back. The daemon logs it at start.
    package static let refusal: SystemError? = probe()

    /// Runs `body` at nice ``nice`` on the calling thread (on Linux a nice
    /// value is a thread's, and `who` 0 names the calling thread), then
    /// puts the thread's own value back. Failures change nothing else.
    static func run<T>(_ body: () throws -> T) rethrows -> T {
        guard refusal == nil else { return try body() }
        errno = 0
        let before = getpriority(which, 0)
        let known = errno == 0
        let lowered = known && before < nice && setpriority(which, 0, nice) == 0
        defer { if lowered { _ = setpriority(which, 0, before) } }
        return try body()
    }

    /// Steps a new thread back and returns it, and says what failed.
    private static func probe() -> SystemError? {
        let result = BulkProbe()
        let context = Unmanaged.passRetained(result).toOpaque()
        var thread = pthread_t()
        let code = pthread_create(&thread, nil, bulkProbeMain, context)
        guard code == 0 else {
            Unmanaged<BulkProbe>.fromOpaque(context).release()
            return SystemError("pthread_create", errno: code, context: "probing thread priorities")
        }
        pthread_join(thread, nil)
        return result.refusal
    }
}

/// What the probe thread found: written by the probe thread, read after
/// `pthread_join`, behind a lock the compiler can check.
private final class BulkProbe: Sendable {
    private let found = Mutex<SystemError?>(nil)
    /// Why bulk jobs keep the normal priority, if they do.
    var refusal: SystemError? {
        get { found.withLock { $0 } }
        set { found.withLock { $0 = newValue } }
    }
}

/// The probe thread: lower itself to nice ``BulkThread/nice``, then back. At file scope and
/// nonisolated: called from C.
private func bulkProbeMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let probe = Unmanaged<BulkProbe>.fromOpaque(context!).takeRetainedValue()
    let which = BulkThread.which
    errno = 0
    let before = getpriority(which, 0)
    if errno != 0 {
        probe.refusal = SystemError("getpriority", errno: errno, context: "bulk jobs run at normal priority")
    } else if before < BulkThread.nice, setpriority(which, 0, BulkThread.nice) != 0 {
        probe.refusal = SystemError("setpriority", errno: errno, context: "to nice \(BulkThread.nice): a system call filter? bulk jobs run at normal priority")
    } else if before < BulkThread.nice, setpriority(which, 0, before) != 0 {
        probe.refusal = SystemError("setpriority", errno: errno,
                                    context: "back to nice \(before): RLIMIT_NICE (LimitNICE=+0) or CAP_SYS_NICE is needed; bulk jobs run at normal priority")
    }
    return nil
}
