import Dispatch
import Glibc
import PeerSystem
import Synchronization

/// An epoll instance of its own and a thread that waits on it and hands
/// each batch of reports to one serial queue, in that queue's turn: ``Poller``'s idiom for a
/// component that runs off the main actor (the datagram engine, the bulk
/// lanes' readers). Its
/// descriptors are watched here, not by Dispatch sources: libdispatch's
/// epoll backend traps or reads freed memory when sources on short-lived
/// descriptors are cancelled and their numbers reused quickly, and a
/// local program opens and closes `datagrams` sockets at will
/// (docs/architecture.md, "Watching descriptors").
///
/// Registrations are one-shot with tokens the owner never reuses: a
/// report that comes after its descriptor was forgotten names a token
/// nobody holds. Forgetting is immediate (`epoll_ctl(DEL)`), so the owner
/// closes the descriptor right after.
/// It is used on its owner's queue; its one changing value, the state, is
/// behind a `Mutex` the compiler checks (never contended), and the thread
/// holds only what ``start(reporting:)`` gave it.
final class QueuePoller: Sendable {
    /// The epoll instance.
    private let epoll: Epoll
    /// Where reports go.
    private let queue: DispatchQueue
    /// Written once to end the thread; its read end is watched under ``stopToken``.
    private let stopPipe: (read: FileDescriptor, write: FileDescriptor)
    /// The datagram engine's thread's name (`top -H`; pinned by a lab test).
    static let datagramThreadName = "peerd-datagram"
    /// The bulk lanes' reading thread's name (``LanePoller``).
    static let laneThreadName = "peerd-lanes"
    /// Its thread's name.
    let threadName: String
    /// Its thread's nice value (0: the process's).
    private let nice: Int32
    /// The token of the stop pipe: no owner's.
    private static let stopToken = UInt64.max
    /// Not started, running, or stopped (then its descriptors are closed,
    /// by the thread if it ran, and nothing is watched again).
    private let state = Mutex(State.idle)

    private enum State { case idle, running, stopped }

    /// A poller whose reports go to `queue`, on a thread named `name` at
    /// nice `nice` (a thread of its own needs no privilege to step back,
    /// and never steps forward again); nothing is watched until
    /// ``start(reporting:)``.
    init(queue: DispatchQueue, name: String = QueuePoller.datagramThreadName, nice: Int32 = 0) throws(SystemError) {
        threadName = name
        self.nice = nice
        epoll = try Epoll()
        var ends: [Int32] = [0, 0]
        guard pipe(&ends) == 0 else {
            let code = errno
            epoll.descriptor.close()
            throw SystemError("pipe", errno: code, context: "the \(name) poller's stop pipe")
        }
        for end in ends { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        stopPipe = (FileDescriptor(rawValue: ends[0]), FileDescriptor(rawValue: ends[1]))
        self.queue = queue
    }

    deinit { stop() }

    /// Starts the thread: each batch of reports is handed to `handle` on
    /// the queue, in one block, until ``stop()``.
    func start(reporting handle: @escaping @Sendable ([Epoll.Report]) -> Void) throws(SystemError) {
        guard state.withLock({ $0 }) == .idle else { return }
        try epoll.add(stopPipe.read, for: .readReady, token: Self.stopToken)
        let thread = QueuePollerThread(epoll: epoll, stopPipe: stopPipe, queue: queue, handle: handle, stopToken: Self.stopToken,
                                       name: threadName, nice: nice)
        let context = Unmanaged.passRetained(thread).toOpaque()
        var id = pthread_t()
        let code = pthread_create(&id, nil, queuePollerThreadMain, context)
        guard code == 0 else {
            Unmanaged<QueuePollerThread>.fromOpaque(context).release()
            throw SystemError("pthread_create", errno: code, context: "the \(threadName) poller")
        }
        pthread_detach(id)
        state.withLock { $0 = .running }
    }

    /// Ends the thread (it finishes the wait it is in, closes the
    /// descriptors and goes); nothing is watched after.
    func stop() {
        let was = state.withLock { state in
            defer { state = .stopped }
            return state
        }
        switch was {
        case .running:
            var byte: UInt8 = 1
            _ = write(stopPipe.write.rawValue, &byte, 1)
        case .idle:
            QueuePollerThread.close(epoll: epoll, stopPipe: stopPipe)
        case .stopped:
            return
        }
    }

    /// Watches `descriptor` once for input under `token`.
    func watch(_ descriptor: FileDescriptor, token: UInt64) throws(SystemError) {
        guard state.withLock({ $0 }) != .stopped else { throw SystemError("epoll_ctl", errno: EBADF, context: "the \(threadName) poller has stopped") }
        try epoll.add(descriptor, for: .readReady, token: token)
    }

    /// Watches `descriptor` once more, after a report was handled.
    func rearm(_ descriptor: FileDescriptor, token: UInt64) throws(SystemError) {
        guard state.withLock({ $0 }) != .stopped else { return }
        try epoll.rearm(descriptor, for: .readReady, token: token)
    }

    /// Stops watching `descriptor`, before it is closed.
    func forget(_ descriptor: FileDescriptor) {
        guard state.withLock({ $0 }) != .stopped else { return }
        try? epoll.remove(descriptor)
    }
}

/// What the poller's thread holds: the epoll instance, where reports go,
/// and how it learns to stop, none of which changes; it closes the
/// descriptors as it goes.
private final class QueuePollerThread: Sendable {
    let epoll: Epoll
    let stopPipe: (read: FileDescriptor, write: FileDescriptor)
    let queue: DispatchQueue
    let handle: @Sendable ([Epoll.Report]) -> Void
    let stopToken: UInt64
    let name: String
    let nice: Int32

    init(epoll: Epoll, stopPipe: (read: FileDescriptor, write: FileDescriptor), queue: DispatchQueue,
         handle: @escaping @Sendable ([Epoll.Report]) -> Void, stopToken: UInt64, name: String, nice: Int32) {
        self.name = name
        self.nice = nice
        self.epoll = epoll
        self.stopPipe = stopPipe
        self.queue = queue
        self.handle = handle
        self.stopToken = stopToken
    }

    /// Waits and forwards until the stop pipe is written.
    func run() {
        defer { Self.close(epoll: epoll, stopPipe: stopPipe) }
        while true {
            guard let reports = try? epoll.wait(timeout: -1) else { return }
            if reports.contains(where: { $0.token == stopToken }) { return }
            guard !reports.isEmpty else { continue }
            // Handled here, in the queue's turn (a `sync` from another
            // thread runs on it): no second thread is woken per batch.
            queue.sync { handle(reports) }
        }
    }

    /// Closes the epoll instance and the stop pipe.
    static func close(epoll: Epoll, stopPipe: (read: FileDescriptor, write: FileDescriptor)) {
        epoll.descriptor.close()
        stopPipe.read.close()
        stopPipe.write.close()
    }
}

/// The thread's entry. At file scope and nonisolated: a closure made in
/// main-actor code and called from C traps.
private func queuePollerThreadMain(_ context: UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? {
    let thread = Unmanaged<QueuePollerThread>.fromOpaque(context!).takeRetainedValue()
    ThreadName.set(thread.name)
    // A failure leaves the normal priority: the same work, less polite.
    if thread.nice > 0 { _ = setpriority(__priority_which_t(PRIO_PROCESS.rawValue), 0, thread.nice) }
    thread.run()
    return nil
}
