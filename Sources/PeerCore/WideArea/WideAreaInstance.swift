internal import PeerProtocol

/// One instance as a wide-area lookup found it: its SRV, its TXT and the
/// addresses of the SRV's target, copied out of ldns's packets.
package struct WideAreaInstance: Hashable, Sendable {
    /// The most addresses of each family taken from one target.
    package static let maxAddressesPerFamily = 4
    /// The session port.
    package var port: UInt16
    /// The SRV's target host.
    package var target: DNSName
    /// The TXT strings, in record order.
    package var txt: [[UInt8]]
    /// The target's addresses.
    package var addresses: [WideAreaPublication.HostAddress]
    /// The smallest TTL of the records read, in seconds.
    package var ttl: UInt32

    /// An instance.
    package init(port: UInt16, target: DNSName, txt: [[UInt8]], addresses: [WideAreaPublication.HostAddress], ttl: UInt32) {
        self.port = port
        self.target = target
        self.txt = txt
        self.addresses = addresses
        self.ttl = ttl
    }

    /// The TXT strings as pairs (RFC 6763 §6.3: split at the first `=`),
    /// without the lease; strings that are not UTF-8 are skipped.
    package var entries: [TXTEntry] {
        txt.compactMap { bytes -> TXTEntry? in
            guard let text = String(validating: bytes, as: UTF8.self), !text.isEmpty else { return nil }
            let parts = text.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let entry = TXTEntry(key: String(parts[0]), value: parts.count > 1 ? String(parts[1]) : "")
            let key = entry.key.lowercased()
            return key == WideAreaPublication.leaseKey || key == WideAreaPublication.nameKey ? nil : entry
        }
    }

    /// The name to show for the instance whose label is `label`: the TXT's
    /// `name` when it is `label` but for ASCII case (a server may have
    /// lowered the label's case), else the label itself, so a TXT cannot
    /// give an instance another name than the one it is listed under.
    package func displayName(label: String) -> String {
        for bytes in txt {
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            let prefix = WideAreaPublication.nameKey + "="
            guard text.lowercased().hasPrefix(prefix) else { continue }
            let name = String(text.dropFirst(prefix.count))
            if let a = DNSName([name]), let b = DNSName([label]), a.matches(b) { return name }
        }
        return label
    }

    /// The lease's end, seconds since 1970, when the TXT has one (records
    /// a site's administrator added by hand have none, and do not expire).
    package var leaseEnds: UInt64? {
        for bytes in txt {
            guard let text = String(validating: bytes, as: UTF8.self) else { continue }
            let prefix = WideAreaPublication.leaseKey + "="
            if text.lowercased().hasPrefix(prefix) { return UInt64(text.dropFirst(prefix.count)) }
        }
        return nil
    }
}
