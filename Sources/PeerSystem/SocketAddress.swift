import Glibc

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

    /// Calls `body` with `address` viewed as a `sockaddr` and its length.
    @discardableResult
    public static func withSockaddr<A, R, E: Error>(_ address: A, _ body: (UnsafePointer<sockaddr>, socklen_t) throws(E) -> R) throws(E) -> R {
        try withUnsafePointer(to: address) { pointer throws(E) in
            try pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { sa throws(E) in try body(sa, socklen_t(MemoryLayout<A>.size)) }
        }
    }
}
