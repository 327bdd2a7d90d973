import Glibc

/// A file descriptor. Ownership is explicit: whoever holds the value that
/// came from `open`/`socket`/`accept` calls ``close()`` exactly once.
public struct FileDescriptor: Hashable, Sendable {
    /// The raw descriptor.
    public let rawValue: Int32

    /// Wraps a raw descriptor.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// Closes it. `EINTR` from close is not retried: on Linux the descriptor
    /// is released either way, and a retry could close someone else's.
    public func close() {
        _ = Glibc.close(rawValue)
    }

    /// Sets `O_NONBLOCK`.
    public func setNonBlocking() throws(SystemError) {
        let flags = try Syscall.call("fcntl", "F_GETFL") { fcntl(rawValue, F_GETFL) }
        try Syscall.call("fcntl", "F_SETFL") { fcntl(rawValue, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Accepts a connection on this listening socket, made non-blocking and
    /// close-on-exec; nil when none is waiting. (Glibc's module does not
    /// export `accept4`, so the flags are set after `accept`.)
    public func acceptConnection(context: String) throws(SystemError) -> FileDescriptor? {
        guard let fd = try Syscall.nonBlocking("accept", context, { Glibc.accept(rawValue, nil, nil) }) else { return nil }
        let accepted = FileDescriptor(rawValue: fd)
        do {
            try Syscall.call("fcntl", "F_SETFD") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
            try accepted.setNonBlocking()
        } catch {
            accepted.close()
            throw error
        }
        return accepted
    }

    /// Reads what is there, up to `buffer`'s size; nil when it would block,
    /// 0 at end of file.
    public func read(into buffer: UnsafeMutableRawBufferPointer) throws(SystemError) -> Int? {
        try Syscall.nonBlocking("read") { Glibc.read(rawValue, buffer.baseAddress, buffer.count) }
    }

    /// Writes what it can; nil when it would block. Uses `send` with
    /// `MSG_NOSIGNAL` on sockets so a vanished peer is `EPIPE`, not SIGPIPE.
    public func send(_ bytes: UnsafeRawBufferPointer) throws(SystemError) -> Int? {
        try Syscall.nonBlocking("send") { Glibc.send(rawValue, bytes.baseAddress, bytes.count, Int32(MSG_NOSIGNAL)) }
    }

    /// Writes what it can of several buffers in one `sendmsg` (with
    /// `MSG_NOSIGNAL`); nil when it would block.
    public func send(_ vectors: UnsafeBufferPointer<iovec>) throws(SystemError) -> Int? {
        var message = msghdr()
        message.msg_iov = UnsafeMutablePointer(mutating: vectors.baseAddress)
        message.msg_iovlen = vectors.count
        return try Syscall.nonBlocking("sendmsg") { sendmsg(rawValue, &message, Int32(MSG_NOSIGNAL)) }
    }

    /// Sends all of `bytes` on a blocking socket with `MSG_NOSIGNAL`: a peer
    /// that has closed is `EPIPE`, never SIGPIPE, whatever the process does
    /// with that signal.
    public func sendAll(_ bytes: [UInt8], context: String = "") throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            offset += try Syscall.call("send", context) {
                bytes.withUnsafeBytes { raw in Glibc.send(rawValue, raw.baseAddress! + start, raw.count - start, Int32(MSG_NOSIGNAL)) }
            }
        }
    }

    /// Writes all of `bytes`, blocking; for regular files and blocking sockets.
    public func writeAll(_ bytes: [UInt8], context: String = "") throws(SystemError) {
        var offset = 0
        while offset < bytes.count {
            let start = offset
            offset += try Syscall.call("write", context) {
                bytes.withUnsafeBytes { raw in Glibc.write(rawValue, raw.baseAddress! + start, raw.count - start) }
            }
        }
    }
}
