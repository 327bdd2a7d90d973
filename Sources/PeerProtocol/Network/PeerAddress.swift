import Glibc

/// Where `peerctl add` dials a peer with no mDNS: `HOST[:PORT]` as a user
/// types it. HOST is an IPv4 address, an IPv6 address (in brackets when a
/// port follows, with `%IFACE` as the scope of a link-local one) or a host
/// name; PORT defaults to ``defaultPort``, which peerd prefers for its
/// session port.
package struct PeerAddress: Equatable, Sendable {
    /// The session port a daemon listens on unless told otherwise (or
    /// unless it is taken), so `peerctl add HOST` needs no port.
    package static let defaultPort: UInt16 = 7717

    /// The host: a numeric address (no brackets, no scope) or a name.
    package var host: String
    /// An IPv6 address's scope (`%eth0`), without the `%`.
    package var scope: String?
    /// The port given, if any.
    package var port: UInt16?

    /// Creates one from its parts.
    package init(host: String, scope: String? = nil, port: UInt16? = nil) {
        self.host = host
        self.scope = scope
        self.port = port
    }

    /// The family of a numeric host; nil for a host name.
    package var family: AddressFamily? { Self.family(of: host) }

    /// The family of numeric `address`, or nil when it is not one.
    package static func family(of address: String) -> AddressFamily? {
        var v4 = in_addr()
        if inet_pton(AF_INET, address, &v4) == 1 { return .ipv4 }
        var v6 = in6_addr()
        if inet_pton(AF_INET6, address, &v6) == 1 { return .ipv6 }
        return nil
    }

    /// The endpoint to dial, when the host is numeric: a link-local IPv6
    /// address takes its scope as the interface.
    package var endpoint: Endpoint? {
        guard let family else { return nil }
        return Endpoint(interface: scope ?? "", family: family, address: host, port: port ?? Self.defaultPort)
    }

    /// Reads `HOST[:PORT]`.
    package static func parse(_ text: String) throws(PeerAddressError) -> PeerAddress {
        guard !text.isEmpty else { throw .empty }
        guard text.utf8.count <= 300, !text.contains(where: { $0.isWhitespace }) else { throw .malformed(text) }
        var host = Substring(text)
        var portText: Substring?
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { throw .malformed(text) }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":") else { throw .malformed(text) }
                portText = rest.dropFirst()
            }
        } else if host.filter({ $0 == ":" }).count == 1, let colon = host.firstIndex(of: ":") {
            portText = host[host.index(after: colon)...]
            host = host[..<colon]
        }
        var scope: String?
        if let percent = host.firstIndex(of: "%") {
            scope = String(host[host.index(after: percent)...])
            host = host[..<percent]
            guard scope?.isEmpty == false, family(of: String(host)) == .ipv6 else { throw .scopeWithoutIPv6(text) }
        }
        guard !host.isEmpty else { throw .malformed(text) }
        if family(of: String(host)) == nil, host.contains(":") { throw .malformed(text) }
        var port: UInt16?
        if let portText {
            guard let value = UInt16(portText), value != 0 else { throw .badPort(String(portText)) }
            port = value
        }
        return PeerAddress(host: String(host), scope: scope, port: port)
    }
}
