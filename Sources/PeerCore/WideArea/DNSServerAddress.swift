/// `--dns-server`'s value: a numeric address and a port
/// (`192.0.2.53`, `192.0.2.53:5353`, `2001:db8::53`, `[2001:db8::53]:5353`).
/// A name is refused: finding the server must not itself need DNS.
package struct DNSServerAddress: Hashable, Sendable, CustomStringConvertible {
    /// The numeric address.
    package var address: String
    /// The port (53 unless given).
    package var port: UInt16

    /// Parses `text`; nil when it is not a numeric address with an optional port.
    package init?(_ text: String) {
        var host = text
        var port: UInt16 = 53
        if text.hasPrefix("[") {
            guard let close = text.firstIndex(of: "]") else { return nil }
            host = String(text[text.index(after: text.startIndex)..<close])
            let rest = text[text.index(after: close)...]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let number = UInt16(rest.dropFirst()), number > 0 else { return nil }
                port = number
            }
            guard Self.isIPv6(host) else { return nil }
        } else if text.filter({ $0 == ":" }).count == 1 {
            let parts = text.split(separator: ":", omittingEmptySubsequences: false)
            guard let number = UInt16(parts[1]), number > 0 else { return nil }
            host = String(parts[0])
            port = number
            guard Self.isIPv4(host) else { return nil }
        } else {
            guard Self.isIPv4(host) || Self.isIPv6(host) else { return nil }
        }
        address = host
        self.port = port
    }

    /// `address:port`, an IPv6 address in brackets.
    package var description: String { address.contains(":") ? "[\(address)]:\(port)" : "\(address):\(port)" }

    private static func isIPv4(_ text: String) -> Bool {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        return parts.count == 4 && parts.allSatisfy { !$0.isEmpty && $0.count <= 3 && UInt8($0) != nil }
    }

    private static func isIPv6(_ text: String) -> Bool {
        let allowed = Set("0123456789abcdefABCDEF:.")
        return text.contains(":") && text.count <= 45 && text.allSatisfy { allowed.contains($0) } && !text.contains(":::")
    }
}
