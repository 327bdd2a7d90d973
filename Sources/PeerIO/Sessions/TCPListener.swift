import Glibc

/// The session port: one TCP socket on all addresses, IPv4 and IPv6 (an
/// `AF_INET6` socket with `IPV6_V6ONLY` off), or IPv4 only where the kernel
/// has no IPv6.
public struct TCPListener: Sendable {
    /// The listening descriptor, non-blocking.
    public let descriptor: FileDescriptor
    /// The bound port (the kernel's pick when 0 was asked).
    public let port: UInt16
    /// Whether it also accepts IPv6.
    public let dualStack: Bool

    /// Binds to `port` (0: any free port) and listens.
    public init(port: UInt16, backlog: Int32 = 64) throws(SystemError) {
        let streamFlags = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        var fd = socket(AF_INET6, streamFlags, 0)
        let dualStack = fd >= 0
        if !dualStack {
            guard errno == EAFNOSUPPORT else { throw SystemError("socket", errno: errno, context: "AF_INET6") }
            fd = try Syscall.call("socket", "AF_INET") { socket(AF_INET, streamFlags, 0) }
        }
        let descriptor = FileDescriptor(rawValue: fd)
        do {
            var on: Int32 = 1
            var off: Int32 = 0
            try Syscall.call("setsockopt", "SO_REUSEADDR") { setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
            if dualStack {
                try Syscall.call("setsockopt", "IPV6_V6ONLY") { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size)) }
                var address = sockaddr_in6()
                address.sin6_family = sa_family_t(AF_INET6)
                address.sin6_port = port.bigEndian
                address.sin6_addr = in6addr_any
                try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
                    try Syscall.call("bind", "[::]:\(port)") { bind(fd, pointer, length) }
                }
            } else {
                var address = sockaddr_in()
                address.sin_family = sa_family_t(AF_INET)
                address.sin_port = port.bigEndian
                address.sin_addr.s_addr = INADDR_ANY
                try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
                    try Syscall.call("bind", "0.0.0.0:\(port)") { bind(fd, pointer, length) }
                }
            }
            try Syscall.call("listen", "port \(port)") { listen(fd, backlog) }
            self.port = try Self.boundPort(of: fd)
        } catch {
            descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.dualStack = dualStack
    }

    /// Accepts one connection; nil when none is waiting.
    /// Accepted sockets have `TCP_NODELAY` set (``TCPConnector/setNoDelay(_:)``).
    public func accept() throws(SystemError) -> FileDescriptor? {
        guard let accepted = try descriptor.acceptConnection(context: "session port \(port)") else { return nil }
        do { try TCPConnector.setNoDelay(accepted) } catch {
            accepted.close()
            throw error
        }
        return accepted
    }

    /// Closes the listener.
    public func close() { descriptor.close() }

    private static func boundPort(of fd: Int32) throws(SystemError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa throws(SystemError) in
                try Syscall.call("getsockname") { getsockname(fd, sa, &length) }
            }
        }
        if Int32(storage.ss_family) == AF_INET6 {
            return withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self).sin6_port.bigEndian }
        }
        return withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self).sin_port.bigEndian }
    }
}
