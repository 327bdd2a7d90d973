import Glibc

/// systemd socket activation (`sd_listen_fds(3)` without libsystemd): when
/// `LISTEN_PID` is this process and `LISTEN_FDS` ≥ 1, descriptor 3 is the
/// control socket systemd bound for us.
package enum SocketActivation {
    /// The first passed descriptor, checked to be a listening Unix stream
    /// socket and made non-blocking; nil without activation. The variables
    /// are removed so nothing we start inherits them.
    package static func controlSocket() throws(SystemError) -> FileDescriptor? {
        guard let pid = getenv("LISTEN_PID").map({ String(cString: $0) }), Int32(pid) == getpid(),
              let count = getenv("LISTEN_FDS").map({ String(cString: $0) }).flatMap(Int.init), count >= 1 else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        let fd: Int32 = 3
        var type: Int32 = 0
        var listening: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        try Syscall.call("getsockopt", "SO_TYPE of fd 3") { getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &length) }
        length = socklen_t(MemoryLayout<Int32>.size)
        try Syscall.call("getsockopt", "SO_ACCEPTCONN of fd 3") { getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) }
        guard type == Int32(SOCK_STREAM.rawValue), listening == 1 else {
            throw SystemError("socket activation", errno: EINVAL, context: "fd 3 is not a listening stream socket")
        }
        let descriptor = FileDescriptor(rawValue: fd)
        try Syscall.call("fcntl", "F_SETFD fd 3") { fcntl(fd, F_SETFD, FD_CLOEXEC) }
        try descriptor.setNonBlocking()
        return descriptor
    }
}
