import Glibc

/// The session port: one TCP socket on all addresses, IPv4 and IPv6 (an
/// `AF_INET6` socket with `IPV6_V6ONLY` off), or IPv4 only where the kernel
/// has no IPv6.
package struct TCPListener: Sendable {
    /// The listening descriptor, non-blocking.
    package let descriptor: FileDescriptor
    /// The bound port (the kernel's pick when 0 was asked).
    package let port: UInt16
    /// Whether it also accepts IPv6.
    package let dualStack: Bool

    /// Binds to `port` (0: any free port) and listens.
    package init(port: UInt16, backlog: Int32 = 64) throws(SystemError) {
        let (descriptor, dualStack) = try DualStackSocket.open(type: Int32(SOCK_STREAM.rawValue), what: "TCP")
        do {
            var on: Int32 = 1
            try Syscall.call("setsockopt", "SO_REUSEADDR") { setsockopt(descriptor.rawValue, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size)) }
            try DualStackSocket.bind(descriptor, port: port, dualStack: dualStack, what: "TCP")
            try Syscall.call("listen", "port \(port)") { listen(descriptor.rawValue, backlog) }
            self.port = try DualStackSocket.boundPort(of: descriptor)
        } catch {
            descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.dualStack = dualStack
    }

    /// Accepts one connection; nil when none is waiting.
    /// Accepted sockets have `TCP_NODELAY` set (``TCPConnector/setNoDelay(_:)``).
    package func accept() throws(SystemError) -> FileDescriptor? {
        guard let accepted = try descriptor.acceptConnection(context: "session port \(port)") else { return nil }
        do { try TCPConnector.setNoDelay(accepted) } catch {
            accepted.close()
            throw error
        }
        return accepted
    }

    /// Closes the listener.
    package func close() { descriptor.close() }
}
