/// Identifies one DNS-SD service instance as Avahi reports it: the same
/// instance seen on two interfaces, or over IPv4 and IPv6, is two keys.
///
/// Avahi's browser events carry exactly these five fields, and peerd keeps one
/// resolver per key.
package import PeerProtocol
package struct ServiceKey: Hashable, Sendable, CustomStringConvertible {
    /// Kernel interface index the service was seen on.
    package var interfaceIndex: Int32
    /// The protocol (IP family) it was seen over.
    package var family: AddressFamily
    /// The service instance name (the display name).
    package var name: String
    /// The service type, such as `_peerd._tcp`.
    package var type: String
    /// The DNS-SD domain, usually `local`.
    package var domain: String

    /// Creates a key from the fields of an Avahi browse event.
    package init(interfaceIndex: Int32, family: AddressFamily, name: String, type: String, domain: String) {
        self.interfaceIndex = interfaceIndex
        self.family = family
        self.name = name
        self.type = type
        self.domain = domain
    }

    /// The interface index of a service found through unicast DNS
    /// (wide-area DNS-SD, issue 46): no link, so no interface. Avahi's
    /// browse events always carry a real one.
    package static let wideAreaInterface: Int32 = -1

    /// Whether the key is wide-area DNS-SD's, not Avahi's.
    package var isWideArea: Bool { interfaceIndex == Self.wideAreaInterface }

    /// A readable form for logs.
    package var description: String { "\(name).\(type).\(domain)@if\(interfaceIndex)/\(family.rawValue)" }
}
