/// Why `HOST[:PORT]` could not be read (``PeerAddress/parse(_:)``).
package enum PeerAddressError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Nothing was given.
    case empty
    /// Not `HOST`, `HOST:PORT`, `[IPV6]:PORT` or `IPV6%IFACE`.
    case malformed(String)
    /// The port is not a number from 1 to 65535.
    case badPort(String)
    /// A `%scope` on something other than an IPv6 address.
    case scopeWithoutIPv6(String)

    /// Words for the user.
    package var description: String {
        switch self {
        case .empty: return "no address given; expected HOST[:PORT]"
        case .malformed(let text): return "'\(text)' is not HOST[:PORT] (write an IPv6 address with a port as [ADDRESS]:PORT)"
        case .badPort(let text): return "'\(text)' is not a port (1 to 65535)"
        case .scopeWithoutIPv6(let text): return "'\(text)': only an IPv6 address takes a %INTERFACE scope"
        }
    }
}
