internal import Glibc
package import PeerProtocol

/// Which addresses `add` may dial (issue 21, point 5). `add` makes the
/// daemon open a TCP connection where a group member says: without a rule
/// it was a port scanner that saw loopback and this host's own services.
/// Loopback, unspecified, multicast and broadcast addresses, and this
/// host's own, are refused unless the daemon runs with `--allow-local-add`
/// (for tests, and for two daemons on one host).
package enum AddTarget {
    /// Why `endpoint` may not be dialled, or nil. `own` holds this host's
    /// addresses, numeric, as `getifaddrs` gives them.
    package static func refusal(_ endpoint: Endpoint, own: Set<String>, allowLocal: Bool) -> ControlError? {
        guard !allowLocal else { return nil }
        let kind: String?
        switch endpoint.family {
        case .ipv4: kind = v4Kind(endpoint.address)
        case .ipv6: kind = v6Kind(endpoint.address)
        }
        if let kind {
            return ControlError(.permissionDenied, "'\(endpoint.address)' is \(kind); peerd dials it only with --allow-local-add")
        }
        // Compared as numbers, not text: `::ffff:169.254.1.2` and
        // `fe80:0::1` are this host's `169.254.1.2` and `fe80::1` (issue 42).
        if let address = numeric(endpoint.address), own.contains(where: { numeric($0) == address }) {
            return ControlError(.permissionDenied, "'\(endpoint.address)' is an address of this host; peerd dials it only with --allow-local-add")
        }
        return nil
    }

    /// The address as the bytes it names, an IPv4 address mapped into IPv6
    /// as the IPv4 address itself; the scope (`%eth0`) is left out. Nil for
    /// text that is no numeric address.
    static func numeric(_ text: String) -> [UInt8]? {
        let bare = text.split(separator: "%", omittingEmptySubsequences: false).first.map(String.init) ?? text
        var v4 = in_addr()
        if inet_pton(AF_INET, bare, &v4) == 1 { return withUnsafeBytes(of: v4) { Array($0) } }
        var v6 = in6_addr()
        guard inet_pton(AF_INET6, bare, &v6) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: v6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF { return Array(bytes[12...]) }
        return bytes
    }

    private static func v4Kind(_ text: String) -> String? {
        var address = in_addr()
        guard inet_pton(AF_INET, text, &address) == 1 else { return nil }
        return v4Kind(UInt32(bigEndian: address.s_addr))
    }

    private static func v4Kind(_ value: UInt32) -> String? {
        switch value >> 24 {
        case 127: return "a loopback address"
        case 0: return "an unspecified address"
        case 224...239: return "a multicast address"
        default: return value == 0xFFFF_FFFF ? "the broadcast address" : nil
        }
    }

    private static func v6Kind(_ text: String) -> String? {
        var address = in6_addr()
        guard inet_pton(AF_INET6, text.split(separator: "%").first.map(String.init) ?? text, &address) == 1 else { return nil }
        let bytes = withUnsafeBytes(of: address) { Array($0) }
        if bytes.dropLast().allSatisfy({ $0 == 0 }) {
            if bytes[15] == 1 { return "a loopback address" }
            if bytes[15] == 0 { return "an unspecified address" }
        }
        if bytes[0] == 0xFF { return "a multicast address" }
        // An IPv4 address mapped into IPv6 follows the IPv4 rules.
        if bytes[0..<10].allSatisfy({ $0 == 0 }), bytes[10] == 0xFF, bytes[11] == 0xFF {
            return v4Kind(bytes[12...].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
        }
        return nil
    }
}
