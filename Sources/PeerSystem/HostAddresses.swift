import Glibc

/// This host's interface addresses, from `getifaddrs`: one row per
/// address (and one with a nil address for an interface that has none),
/// numeric, in the kernel's order.
public enum HostAddresses {
    /// One row: the interface, its `IFF_*` flags, and an address.
    public struct Row: Sendable, Equatable {
        /// The interface's name.
        public var interface: String
        /// Its flags (`IFF_UP`, `IFF_LOOPBACK`, …).
        public var flags: Int32
        /// A numeric IPv4 or IPv6 address, or nil for a row of another family.
        public var address: String?
    }

    /// Every row; empty when `getifaddrs` fails.
    public static func read() -> [Row] {
        var list: UnsafeMutablePointer<ifaddrs>?
        guard getifaddrs(&list) == 0 else { return [] }
        defer { freeifaddrs(list) }
        var rows: [Row] = []
        var node = list
        while let entry = node?.pointee {
            node = entry.ifa_next
            var row = Row(interface: String(cString: entry.ifa_name), flags: Int32(bitPattern: entry.ifa_flags), address: nil)
            if let address = entry.ifa_addr, address.pointee.sa_family == AF_INET || address.pointee.sa_family == AF_INET6 {
                let length = socklen_t(address.pointee.sa_family == AF_INET ? MemoryLayout<sockaddr_in>.size : MemoryLayout<sockaddr_in6>.size)
                row.address = SocketAddress.numericHost(address, length: length)
            }
            rows.append(row)
        }
        return rows
    }
}
