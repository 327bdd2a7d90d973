/// One address at which a peer can be reached.
public struct Endpoint: Codable, Hashable, Sendable {
    /// Interface name, such as `eth0`.
    public var interface: String
    /// IP family of `address`.
    public var family: AddressFamily
    /// Numeric address; IPv6 link-local addresses carry no scope here, the
    /// interface names it.
    public var address: String
    /// The peer's session port.
    public var port: UInt16

    /// Creates an endpoint.
    public init(interface: String, family: AddressFamily, address: String, port: UInt16) {
        self.interface = interface
        self.family = family
        self.address = address
        self.port = port
    }

    /// `address:port`, with an IPv6 address in brackets and its interface
    /// as the scope (`[fe80::1%eth0]:4000`), so the port cannot be read as
    /// part of the address.
    public var hostPort: String {
        family == .ipv6 ? "[\(address)\(interface.isEmpty ? "" : "%" + interface)]:\(port)" : "\(address):\(port)"
    }
}
