import Glibc
import PeerSystem
import Synchronization

/// Writes a bulk lane's sealed frames to its socket from the thread that
/// sealed them (issue 44, point 3), at that thread's low priority: the
/// kernel's share of sending (the copy into the socket, and on a local
/// link the receiving side's TCP work, done in the sender's system call)
/// then runs behind every small thing, not on the main actor.
///
/// It writes a descriptor of its own (a `dup` of the lane's socket),
/// closed when it goes, so the lane's transport may close its own at any
/// time. A frame is written whole or not at all as far as the caller
/// knows: on a full socket it waits in `poll`, a second at a time, and
/// gives up when ``stop()`` was called or the peer has read nothing for
/// ``stallPolls`` seconds (docs/protocol.md §2's 10 s).
final class LaneSocketWriter: Sendable {
    /// Seconds without progress before the lane counts as stalled.
    static let stallPolls = 10

    private let descriptor: FileDescriptor
    private let stopped = Atomic<Bool>(false)

    /// A writer on a copy of `socket`.
    init(socket: FileDescriptor) throws(SystemError) {
        descriptor = FileDescriptor(rawValue: try Syscall.call("dup", "the bulk lane's socket") { dup(socket.rawValue) })
    }

    deinit { descriptor.close() }

    /// No more writes: one under way gives up at its next wait.
    func stop() { stopped.store(true, ordering: .relaxed) }

    /// Writes all of `frame`; nil when it is written, else why not.
    func write(_ frame: [UInt8]) -> String? {
        var offset = 0
        var idlePolls = 0
        while offset < frame.count {
            if stopped.load(ordering: .relaxed) { return "the lane closed" }
            let sent: Int?
            do {
                sent = try frame.withUnsafeBytes { raw in try descriptor.send(UnsafeRawBufferPointer(rebasing: raw[offset...])) }
            } catch {
                return "\(error)"
            }
            if let sent {
                offset += sent
                idlePolls = 0
                continue
            }
            var ready = pollfd(fd: descriptor.rawValue, events: Int16(POLLOUT), revents: 0)
            if poll(&ready, 1, 1000) == 0 {
                idlePolls += 1
                if idlePolls >= Self.stallPolls { return "the peer has not read the lane for \(Self.stallPolls) s" }
            }
        }
        return nil
    }
}
