import CMalloc

/// Gives back the calling thread's stack pages below its current frame
/// (issue 25: idle private memory). A thread keeps every stack page it
/// ever touched: the thread that runs the main queue touched 56 KB in an
/// idle daemon (start-up and each burst of work run deep), and the main
/// thread 28 KB before it enters its loop (``Poller/runOnMainThread()``). Below
/// the caller's frame nothing is live, so those pages can go; a later
/// call that runs as deep faults in zeroed pages, as a new thread would.
package enum ThreadStack {
    /// What stays touched below the caller's frame: the call's own frames,
    /// and room for a signal handler.
    package static let keep = 16 << 10

    /// Gives back what lies more than ``keep`` bytes below this call, on
    /// the calling thread's stack. Returns the bytes given back, or nil
    /// when the stack's bounds could not be read or `madvise` refused (the
    /// main thread's range reaches below its mapped stack, so there it
    /// gives back what is mapped and says no).
    @discardableResult
    package static func releaseBelowCurrentFrame() -> Int? {
        let released = peerd_release_stack_below(keep)
        return released < 0 ? nil : released
    }
}
