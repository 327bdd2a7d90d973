import Glibc
import PeerCore
import PeerProtocol

/// Starts non-blocking TCP connects to peer endpoints. An IPv6 link-local
/// address needs its interface as the scope id, or the kernel cannot route it.
package enum TCPConnector {
    /// Begins connecting to `endpoint`; the descriptor becomes writable when
    /// the connect finishes (check ``finishConnect(_:)``).
    package static func startConnect(to endpoint: Endpoint) throws(SystemError) -> FileDescriptor {
        let context = endpoint.hostPort
        let family = endpoint.family == .ipv4 ? AF_INET : AF_INET6
        let fd = try Syscall.call("socket", context) {
            socket(family, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        }
        let descriptor = FileDescriptor(rawValue: fd)
        do { try setNoDelay(descriptor) } catch {
            descriptor.close()
            throw error
        }
        let result: Int32
        do { result = try SocketAddress.withSockaddr(of: endpoint) { connect(fd, $0, $1) } } catch {
            descriptor.close()
            throw error
        }
        if result != 0 && errno != EINPROGRESS {
            let code = errno
            descriptor.close()
            throw SystemError("connect", errno: code, context: context)
        }
        return descriptor
    }

    /// Turns Nagle's algorithm off: peerd coalesces its own writes (one
    /// flush per main-queue turn), and a small frame must not wait about
    /// 40 ms for the peer's delayed ACK.
    /// Also keeps at most ``unsentLimit`` bytes unsent in the kernel
    /// (`TCP_NOTSENT_LOWAT`): the rest of a bulk transfer waits in our own
    /// bounded queue, so a message or keepalive queued behind it is not also
    /// behind megabytes of socket buffer.
    package static func setNoDelay(_ descriptor: FileDescriptor) throws(SystemError) {
        var on: Int32 = 1
        try Syscall.call("setsockopt", "TCP_NODELAY") {
            setsockopt(descriptor.rawValue, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        try setUnsentLimit(descriptor, unsentLimit)
    }

    /// Keeps at most `bytes` unsent in the kernel (`TCP_NOTSENT_LOWAT`):
    /// a session's small limit, or a bulk lane's large one.
    package static func setUnsentLimit(_ descriptor: FileDescriptor, _ bytes: Int) throws(SystemError) {
        var unsent = Int32(bytes)
        try Syscall.call("setsockopt", "TCP_NOTSENT_LOWAT") {
            setsockopt(descriptor.rawValue, Int32(IPPROTO_TCP), TCP_NOTSENT_LOWAT, &unsent, socklen_t(MemoryLayout<Int32>.size))
        }
    }

    /// Bytes a session's socket may hold unsent (`TCP_NOTSENT_LOWAT`).
    package static let unsentLimit = 128 * 1024

    /// After writability: nil if connected, else the connect error.
    package static func finishConnect(_ descriptor: FileDescriptor) -> Int32? {
        var error: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(descriptor.rawValue, SOL_SOCKET, SO_ERROR, &error, &length) == 0 else { return errno }
        return error == 0 ? nil : error
    }

    /// An address as rows list it: an IPv4 peer seen on a dual-stack socket
    /// loses its `::ffff:` prefix. One rule for per-address limits, known
    /// addresses and remembered addresses.
    package static func plainHost(_ address: String) -> String {
        address.hasPrefix("::ffff:") ? String(address.dropFirst(7)) : address
    }

    /// The numeric address of the connected peer, for logs.
    package static func peerAddress(_ descriptor: FileDescriptor) -> String {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor.rawValue, $0, &length) }
        } == 0
        guard ok else { return "?" }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        if Int32(storage.ss_family) == AF_INET {
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
            inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
        } else {
            var address = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in6.self) }
            inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
        }
        return String(decoding: text.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
