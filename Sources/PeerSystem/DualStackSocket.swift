import Glibc

/// A socket on all addresses, IPv4 and IPv6: one `AF_INET6` socket with
/// `IPV6_V6ONLY` off, or an `AF_INET` one where the kernel has no IPv6.
/// The session port (TCP) and the datagram port (UDP) are both made so.
public enum DualStackSocket {
    /// A non-blocking, close-on-exec socket of `type` (`SOCK_STREAM`,
    /// `SOCK_DGRAM`), and whether it carries IPv6 too. `what` names it in errors.
    public static func open(type: Int32, what: String) throws(SystemError) -> (descriptor: FileDescriptor, dualStack: Bool) {
        let flags = type | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue)
        var fd = socket(AF_INET6, flags, 0)
        let dualStack = fd >= 0
        if !dualStack {
            guard errno == EAFNOSUPPORT else { throw SystemError("socket", errno: errno, context: "AF_INET6, \(what)") }
            fd = try Syscall.call("socket", "AF_INET, \(what)") { socket(AF_INET, flags, 0) }
        }
        if dualStack {
            var off: Int32 = 0
            do {
                try Syscall.call("setsockopt", "IPV6_V6ONLY, \(what)") { setsockopt(fd, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &off, socklen_t(MemoryLayout<Int32>.size)) }
            } catch {
                Glibc.close(fd)
                throw error
            }
        }
        return (FileDescriptor(rawValue: fd), dualStack)
    }

    /// Binds `descriptor` to `port` (0: the kernel's pick) on every address.
    public static func bind(_ descriptor: FileDescriptor, port: UInt16, dualStack: Bool, what: String) throws(SystemError) {
        let fd = descriptor.rawValue
        if dualStack {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            address.sin6_addr = in6addr_any
            try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
                try Syscall.call("bind", "\(what) [::]:\(port)") { Glibc.bind(fd, pointer, length) }
            }
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = INADDR_ANY
            try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
                try Syscall.call("bind", "\(what) 0.0.0.0:\(port)") { Glibc.bind(fd, pointer, length) }
            }
        }
    }

    /// The port `descriptor` is bound to.
    public static func boundPort(of descriptor: FileDescriptor) throws(SystemError) -> UInt16 {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = try withUnsafeMutablePointer(to: &storage) { pointer throws(SystemError) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa throws(SystemError) in
                try Syscall.call("getsockname") { getsockname(descriptor.rawValue, sa, &length) }
            }
        }
        return DatagramAddress(storage: storage, length: length).port
    }
}
