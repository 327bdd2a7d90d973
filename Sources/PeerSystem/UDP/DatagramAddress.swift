import Glibc

/// A socket address a UDP datagram goes to or came from, as the kernel
/// gives and takes it: IPv6, with an IPv4 peer held as `::ffff:a.b.c.d`
/// so one dual-stack socket reaches both, and a link-local address's
/// scope kept.
public struct DatagramAddress: Sendable, Equatable {
    /// The address, always `AF_INET6` (IPv4 mapped), or `AF_INET` on a
    /// host without IPv6.
    public private(set) var storage: sockaddr_storage
    /// The bytes of ``storage`` that are the address.
    public private(set) var length: socklen_t

    /// Wraps what `recvfrom` or `getpeername` filled in.
    public init(storage: sockaddr_storage, length: socklen_t) {
        self.storage = storage
        self.length = length
    }

    /// The peer of a connected socket (a session's TCP connection), with
    /// `port` in place of its own; nil when the socket has no peer.
    /// `mapped`: an IPv4 peer is given as IPv6 (for a dual-stack socket).
    public static func peer(of descriptor: FileDescriptor, port: UInt16, mapped: Bool) -> DatagramAddress? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let ok = withUnsafeMutablePointer(to: &storage) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getpeername(descriptor.rawValue, $0, &length) }
        } == 0
        guard ok else { return nil }
        var address = DatagramAddress(storage: storage, length: length)
        if mapped { address.mapToIPv6() }
        address.port = port
        return address
    }

    /// The port, host order.
    public var port: UInt16 {
        get {
            withUnsafeBytes(of: storage) { raw in
                Int32(storage.ss_family) == AF_INET6 ? raw.load(as: sockaddr_in6.self).sin6_port.bigEndian : raw.load(as: sockaddr_in.self).sin_port.bigEndian
            }
        }
        set {
            let family = Int32(storage.ss_family)
            withUnsafeMutableBytes(of: &storage) { raw in
                if family == AF_INET6 {
                    var address = raw.load(as: sockaddr_in6.self)
                    address.sin6_port = newValue.bigEndian
                    raw.storeBytes(of: address, as: sockaddr_in6.self)
                } else {
                    var address = raw.load(as: sockaddr_in.self)
                    address.sin_port = newValue.bigEndian
                    raw.storeBytes(of: address, as: sockaddr_in.self)
                }
            }
        }
    }

    /// An IPv4 address as its IPv6 mapped form (nothing for IPv6).
    private mutating func mapToIPv6() {
        guard Int32(storage.ss_family) == AF_INET else { return }
        let v4 = withUnsafeBytes(of: storage) { $0.load(as: sockaddr_in.self) }
        var v6 = sockaddr_in6()
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = v4.sin_port
        withUnsafeMutableBytes(of: &v6.sin6_addr) { raw in
            raw[10] = 0xFF
            raw[11] = 0xFF
            withUnsafeBytes(of: v4.sin_addr) { for index in 0..<4 { raw[12 + index] = $0[index] } }
        }
        var mapped = sockaddr_storage()
        withUnsafeMutableBytes(of: &mapped) { $0.storeBytes(of: v6, as: sockaddr_in6.self) }
        storage = mapped
        length = socklen_t(MemoryLayout<sockaddr_in6>.size)
    }

    /// Compares the family, address, port and scope (not the padding).
    public static func == (lhs: DatagramAddress, rhs: DatagramAddress) -> Bool {
        guard lhs.length == rhs.length else { return false }
        return withUnsafeBytes(of: lhs.storage) { l in
            withUnsafeBytes(of: rhs.storage) { r in memcmp(l.baseAddress!, r.baseAddress!, Int(lhs.length)) == 0 }
        }
    }
}
