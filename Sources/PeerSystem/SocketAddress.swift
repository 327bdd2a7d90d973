import Glibc
import PeerProtocol

/// Builds and reads socket addresses.
public enum SocketAddress {
    /// Fills a `sockaddr_un` for `path`; throws when the path does not fit
    /// `sun_path` (108 bytes with the NUL).
    public static func unix(_ path: String) throws(SystemError) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !bytes.isEmpty, bytes.count < capacity else { throw SystemError("bind", errno: ENAMETOOLONG, context: path) }
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return address
    }

    /// Calls `body` with `endpoint` as a `sockaddr` and its length: an IPv6
    /// address takes its interface as the scope id (a link-local one cannot
    /// be routed without it). Throws `EINVAL` when the address is not numeric.
    public static func withSockaddr<R>(of endpoint: Endpoint, _ body: (UnsafePointer<sockaddr>, socklen_t) -> R) throws(SystemError) -> R {
        if endpoint.family == .ipv4 {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = endpoint.port.bigEndian
            guard inet_pton(AF_INET, endpoint.address, &address.sin_addr) == 1 else { throw SystemError("inet_pton", errno: EINVAL, context: endpoint.address) }
            return withSockaddr(address, body)
        }
        var address = sockaddr_in6()
        address.sin6_family = sa_family_t(AF_INET6)
        address.sin6_port = endpoint.port.bigEndian
        guard inet_pton(AF_INET6, endpoint.address, &address.sin6_addr) == 1 else { throw SystemError("inet_pton", errno: EINVAL, context: endpoint.address) }
        address.sin6_scope_id = endpoint.interface.isEmpty ? 0 : if_nametoindex(endpoint.interface)
        return withSockaddr(address, body)
    }

    /// The numeric host of an IPv4 or IPv6 socket address (`getnameinfo`
    /// with `NI_NUMERICHOST`; a scoped IPv6 address keeps its `%IFACE`).
    public static func numericHost(_ address: UnsafePointer<sockaddr>, length: socklen_t) -> String? {
        var text = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        guard getnameinfo(address, length, &text, socklen_t(text.count), nil, 0, NI_NUMERICHOST) == 0 else { return nil }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Calls `body` with `address` viewed as a `sockaddr` and its length.
    @discardableResult
    public static func withSockaddr<A, R, E: Error>(_ address: A, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        try withUnsafePointer(to: address) { pointer throws(E) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa throws(E) in try body(sa, socklen_t(MemoryLayout<A>.size)) }
        }
    }
}
