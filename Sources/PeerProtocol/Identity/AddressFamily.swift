/// The IP family an endpoint was seen over.
public enum AddressFamily: String, Codable, Sendable, Hashable, CaseIterable {
    /// IPv4 (Avahi's `AVAHI_PROTO_INET`).
    case ipv4 = "ipv4"
    /// IPv6 (Avahi's `AVAHI_PROTO_INET6`).
    case ipv6 = "ipv6"
}
