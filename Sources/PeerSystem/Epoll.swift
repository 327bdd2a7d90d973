import CPoll
import Glibc

/// An epoll(7) instance: thin typed calls, nothing more. Descriptors are
/// registered one-shot with a caller's token, so a report names the
/// registration, never a pointer, and a report that arrives after the
/// registration is gone is recognised by its token and dropped.
public struct Epoll: Sendable {
    /// What a descriptor is watched for, or what was reported.
    public struct Events: OptionSet, Sendable, Hashable {
        /// The raw epoll bits.
        public let rawValue: UInt32
        /// Wraps raw epoll bits.
        public init(rawValue: UInt32) { self.rawValue = rawValue }
        /// Readable, or the end of the input (`EPOLLIN`).
        public static let readable = Events(rawValue: PEERD_POLL_IN)
        /// Writable (`EPOLLOUT`).
        public static let writable = Events(rawValue: PEERD_POLL_OUT)
        /// The peer shut its writing half (`EPOLLRDHUP`).
        public static let peerClosed = Events(rawValue: PEERD_POLL_RDHUP)
        /// An error is pending (`EPOLLERR`; always reported).
        public static let error = Events(rawValue: PEERD_POLL_ERR)
        /// Hung up (`EPOLLHUP`; always reported).
        public static let hangUp = Events(rawValue: PEERD_POLL_HUP)

        /// What makes a reader look: data, an end, an error.
        public static let readReady: Events = [.readable, .peerClosed, .error, .hangUp]
        /// What makes a writer look: room, an error, a hang-up.
        public static let writeReady: Events = [.writable, .error, .hangUp]
    }

    /// One report: the registration's token and what it saw.
    public struct Report: Sendable, Equatable {
        /// The token it was registered with.
        public var token: UInt64
        /// What happened.
        public var events: Events
    }

    /// The epoll descriptor itself.
    public let descriptor: FileDescriptor

    /// A new instance, close-on-exec.
    public init() throws(SystemError) {
        descriptor = FileDescriptor(rawValue: try Syscall.call("epoll_create1") { peerd_epoll_create() })
    }

    /// Starts watching `fd` once for `events` (one-shot: after a report it
    /// is quiet until ``rearm(_:for:token:)``).
    public func add(_ fd: FileDescriptor, for events: Events, token: UInt64) throws(SystemError) {
        try Syscall.call("epoll_ctl", "ADD \(fd.rawValue)") {
            peerd_epoll_ctl(descriptor.rawValue, 1, fd.rawValue, events.rawValue | PEERD_POLL_ONESHOT, token)
        }
    }

    /// Watches `fd` for `events` until removed (level-triggered, not
    /// one-shot): for a descriptor the loop itself empties each time, such
    /// as the main queue's wake descriptor (``Poller``).
    public func addLasting(_ fd: FileDescriptor, for events: Events, token: UInt64) throws(SystemError) {
        try Syscall.call("epoll_ctl", "ADD \(fd.rawValue)") {
            peerd_epoll_ctl(descriptor.rawValue, 1, fd.rawValue, events.rawValue, token)
        }
    }

    /// Watches `fd` once more, for `events`.
    public func rearm(_ fd: FileDescriptor, for events: Events, token: UInt64) throws(SystemError) {
        try Syscall.call("epoll_ctl", "MOD \(fd.rawValue)") {
            peerd_epoll_ctl(descriptor.rawValue, 3, fd.rawValue, events.rawValue | PEERD_POLL_ONESHOT, token)
        }
    }

    /// Stops watching `fd`; done before it is closed.
    public func remove(_ fd: FileDescriptor) throws(SystemError) {
        try Syscall.call("epoll_ctl", "DEL \(fd.rawValue)") { peerd_epoll_ctl(descriptor.rawValue, 2, fd.rawValue, 0, 0) }
    }

    /// Waits for reports, at most 64, for up to `timeout` milliseconds
    /// (-1: without end). `EINTR` is retried.
    public func wait(timeout: Int32) throws(SystemError) -> [Report] {
        var raw = [peerd_poll_event](repeating: peerd_poll_event(), count: 64)
        let count = try Syscall.call("epoll_wait") { peerd_epoll_wait(descriptor.rawValue, &raw, 64, timeout) }
        return raw[0..<Int(count)].map { Report(token: $0.token, events: Events(rawValue: $0.events)) }
    }
}
