import Dispatch
import PeerSystem
import Synchronization

/// The one thread that reads every bulk lane (issue 44), `peerd-lanes`, at
/// nice ``BulkThread/nice``: a ``QueuePoller`` whose reports are handled on
/// its own thread, in its queue's turn. Each ``LaneReader`` registers its
/// socket here; a readable socket runs that reader's read right on the
/// poller's thread.
///
/// Why one thread of its own and not a Dispatch source a lane: a source's
/// readiness woke libdispatch's event thread, which woke a worker, which
/// changed its priority for the job and back (four thread switches a read,
/// and a read is often one 64 KiB frame). On this machine a wake across
/// cores costs some 17 µs; a 1 GiB send-file's receiver switched threads
/// 140,000 times (docs/performance.md). One thread for all lanes keeps a
/// daemon with many peers at one thread, not one a lane.
///
/// Registrations are one-shot (the poller's idiom): a reader rearms its
/// socket after each read, and not while it waits for the main actor to
/// take its batches: that is its backpressure.
final class LanePoller: Sendable {
    /// Where the reads run: the poller's thread, in this queue's turn.
    let queue = DispatchQueue(label: "peerd.lanes", qos: .userInitiated)
    private let poller: Mutex<QueuePoller?> = Mutex(nil)
    /// Each watched socket's number and what runs when it is readable.
    private let handlers = Mutex<[UInt64: (descriptor: Int32, readable: @Sendable () -> Void)]>([:])
    private let nextToken = Atomic<UInt64>(1)

    /// A poller whose thread starts with the first lane.
    init() {}

    deinit { poller.withLock { $0?.stop() } }

    /// Watches `descriptor` once; `readable` runs on the poller's thread
    /// when it is. Returns the token to rearm and forget it with.
    func watch(_ descriptor: FileDescriptor, readable: @escaping @Sendable () -> Void) throws(SystemError) -> UInt64 {
        let token = nextToken.add(1, ordering: .relaxed).oldValue
        handlers.withLock { $0[token] = (descriptor.rawValue, readable) }
        do {
            try started().watch(descriptor, token: token)
        } catch {
            handlers.withLock { $0[token] = nil }
            throw error
        }
        return token
    }

    /// Watches `descriptor` once more.
    func rearm(_ descriptor: FileDescriptor, token: UInt64) {
        // A failure can only be a descriptor already forgotten.
        try? poller.withLock { $0 }?.rearm(descriptor, token: token)
    }

    /// Stops watching `descriptor` (before it is closed); its handler goes.
    func forget(_ descriptor: FileDescriptor) {
        poller.withLock { $0 }?.forget(descriptor)
        handlers.withLock { table in table = table.filter { $0.value.descriptor != descriptor.rawValue } }
    }

    /// The poller, its thread started on first use.
    private func started() throws(SystemError) -> QueuePoller {
        try poller.withLock { (poller: inout QueuePoller?) throws(SystemError) -> QueuePoller in
            if let poller { return poller }
            let made = try QueuePoller(queue: queue, name: QueuePoller.laneThreadName, nice: BulkThread.nice)
            try made.start { [weak self] reports in
                guard let self else { return }
                let ready = handlers.withLock { table in reports.compactMap { table[$0.token]?.readable } }
                for readable in ready { readable() }
            }
            poller = made
            return made
        }
    }
}
