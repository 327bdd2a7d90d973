import Glibc

/// A non-blocking UDP socket on all addresses, IPv4 and IPv6 (one
/// `AF_INET6` socket with `IPV6_V6ONLY` off), or IPv4 only where the
/// kernel has no IPv6: thin, typed `sendto` and `recvfrom`.
public struct UDPSocket: Sendable {
    /// What one `sendto` came to.
    public enum SendOutcome: Sendable, Equatable {
        /// The kernel took the datagram.
        case sent
        /// The socket's buffer is full (`EAGAIN`): the datagram is dropped.
        case wouldBlock
        /// Another error, with its errno (no route, unreachable, …).
        case failed(Int32)
    }

    /// The descriptor, non-blocking.
    public let descriptor: FileDescriptor
    /// The bound port.
    public let port: UInt16
    /// Whether it also carries IPv6 (then IPv4 peers are mapped).
    public let dualStack: Bool

    /// Binds to `port`; when it is taken (`EADDRINUSE`) and `fallBack`,
    /// to any free port instead.
    public init(port: UInt16, fallBack: Bool = true) throws(SystemError) {
        let (descriptor, dualStack) = try DualStackSocket.open(type: Int32(SOCK_DGRAM.rawValue), what: "UDP")
        let fd = descriptor.rawValue
        do {
            // Room for bursts (the kernel caps it at net.core.rmem_max and
            // wmem_max), and the count of what a full buffer dropped
            // (SO_RXQ_OVFL: said with each datagram read).
            var size: Int32 = 4 << 20
            var on: Int32 = 1
            _ = setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
            _ = setsockopt(fd, SOL_SOCKET, Self.rxqOverflow, &on, socklen_t(MemoryLayout<Int32>.size))
            do { try DualStackSocket.bind(descriptor, port: port, dualStack: dualStack, what: "UDP") } catch where error.errno == EADDRINUSE && fallBack && port != 0 {
                try DualStackSocket.bind(descriptor, port: 0, dualStack: dualStack, what: "UDP")
            }
            self.port = try DualStackSocket.boundPort(of: descriptor)
        } catch {
            descriptor.close()
            throw error
        }
        self.descriptor = descriptor
        self.dualStack = dualStack
    }

    /// Sends `bytes` as one datagram to `address`, now or never.
    public func send(_ bytes: UnsafeRawBufferPointer, to address: DatagramAddress) -> SendOutcome {
        var storage = address.storage
        while true {
            let sent = withUnsafePointer(to: &storage) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor.rawValue, bytes.baseAddress, bytes.count, Int32(MSG_DONTWAIT), $0, address.length)
                }
            }
            if sent >= 0 { return .sent }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK, ENOBUFS: return .wouldBlock
            case let code: return .failed(code)
            }
        }
    }

    /// `SO_RXQ_OVFL` (asm-generic/socket.h): each datagram read then says
    /// how many the socket has dropped so far for want of room.
    static let rxqOverflow: Int32 = 40

    /// Reads one datagram into `buffer`: its length (a longer one is cut,
    /// and said by a length past the buffer's), where it came from, and
    /// how many datagrams the kernel has dropped at this socket so far
    /// (its buffer was full; nil when the kernel did not say); nil when
    /// none waits. An error the socket reports from an earlier send
    /// (`ECONNREFUSED` from an ICMP answer) is read as nothing.
    public func receive(into buffer: UnsafeMutableRawBufferPointer) -> (count: Int, from: DatagramAddress, kernelDropped: UInt32?)? {
        while true {
            var storage = sockaddr_storage()
            // One cmsghdr (16 bytes) and its 4-byte count, aligned: 24.
            var control: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
            var vector = iovec(iov_base: buffer.baseAddress, iov_len: buffer.count)
            let outcome = withUnsafeMutablePointer(to: &storage) { name in
                withUnsafeMutablePointer(to: &vector) { iov in
                    withUnsafeMutableBytes(of: &control) { controlBytes -> (Int, socklen_t, Int) in
                        var message = msghdr()
                        message.msg_name = UnsafeMutableRawPointer(name)
                        message.msg_namelen = socklen_t(MemoryLayout<sockaddr_storage>.size)
                        message.msg_iov = iov
                        message.msg_iovlen = 1
                        message.msg_control = controlBytes.baseAddress
                        message.msg_controllen = controlBytes.count
                        let count = recvmsg(descriptor.rawValue, &message, Int32(MSG_TRUNC) | Int32(MSG_DONTWAIT))
                        return (count, message.msg_namelen, message.msg_controllen)
                    }
                }
            }
            let (count, nameLength, controlLength) = outcome
            if count >= 0 {
                var dropped: UInt32?
                withUnsafeBytes(of: control) { raw in
                    // cmsg_len (size_t), cmsg_level, cmsg_type (Int32 each), then the data.
                    guard controlLength >= 20, raw.load(fromByteOffset: 8, as: Int32.self) == SOL_SOCKET,
                          raw.load(fromByteOffset: 12, as: Int32.self) == Self.rxqOverflow else { return }
                    dropped = raw.load(fromByteOffset: 16, as: UInt32.self)
                }
                return (count, DatagramAddress(storage: storage, length: nameLength), dropped)
            }
            switch errno {
            case EINTR, ECONNREFUSED, EHOSTUNREACH, ENETUNREACH: continue
            default: return nil
            }
        }
    }

    /// Closes the socket.
    public func close() { descriptor.close() }
}
