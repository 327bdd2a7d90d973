package import PeerProtocol

/// What this host publishes into a wide-area domain (RFC 6763 §4, §7.1,
/// §11): a PTR from the service type (and from each app's subtype) to the
/// instance, the instance's SRV and TXT, and the host's address records.
/// A pure value: the publisher builds its updates from it.
package struct WideAreaPublication: Hashable, Sendable {
    /// The TXT key that carries when these records stop being true, in
    /// seconds since 1970 (docs/protocol.md, wide-area DNS-SD): a DNS zone
    /// keeps a record until someone deletes it, so a browser treats an
    /// instance whose lease has passed as gone (a host that was killed, or
    /// lost its network, cannot delete its own).
    package static let leaseKey = "lease"

    /// The TXT key that carries the instance name with its case: some
    /// servers (Knot) keep names in lowercase, and a browser shows this
    /// instead when it is the same name but for case.
    package static let nameKey = "name"

    /// The instance name (this host's display name, after any rename).
    package var instance: String
    /// The service type's labels, such as `_peerd._tcp`.
    package var serviceType: String
    /// The domain published into.
    package var domain: DNSName
    /// The host name's first label (`peerd-` and the peer id's first 16
    /// hex digits): unique per key, so two hosts never share address records.
    package var hostLabel: String
    /// The session port.
    package var port: UInt16
    /// The TXT pairs, as on mDNS (the lease is added to them).
    package var txt: [TXTEntry]
    /// The host's routable addresses (no link-local address: it means
    /// nothing beyond its link).
    package var addresses: [HostAddress]
    /// The apps' subtypes (`_chat._sub._peerd._tcp`).
    package var subtypes: [String]
    /// The records' TTL and the lease's length, in seconds.
    package var ttl: UInt32

    /// An address of this host, by family.
    package struct HostAddress: Hashable, Sendable, Comparable {
        /// The family.
        package var family: AddressFamily
        /// The numeric text.
        package var text: String
        /// An address.
        package init(family: AddressFamily, text: String) {
            self.family = family
            self.text = text
        }
        /// IPv4 first, then by text: a stable order, so equal sets compare equal.
        package static func < (a: HostAddress, b: HostAddress) -> Bool {
            (a.family == .ipv4 ? 0 : 1, a.text) < (b.family == .ipv4 ? 0 : 1, b.text)
        }
    }

    /// Whether `address` means something beyond its link: not loopback
    /// (127/8, ::1), not link-local (169.254/16, fe80::/10), not unspecified.
    package static func isRoutable(_ address: HostAddress) -> Bool {
        let text = address.text.lowercased()
        switch address.family {
        case .ipv4:
            return !text.hasPrefix("127.") && !text.hasPrefix("169.254.") && text != "0.0.0.0"
        case .ipv6:
            return text != "::1" && text != "::" && !["fe8", "fe9", "fea", "feb"].contains(where: { text.hasPrefix($0) })
        }
    }

    /// A publication.
    package init(instance: String, serviceType: String, domain: DNSName, hostLabel: String, port: UInt16, txt: [TXTEntry],
                addresses: [HostAddress], subtypes: [String], ttl: UInt32) {
        self.instance = instance
        self.serviceType = serviceType
        self.domain = domain
        self.hostLabel = hostLabel
        self.port = port
        self.txt = txt
        self.addresses = addresses.sorted()
        self.subtypes = subtypes.sorted()
        self.ttl = ttl
    }

    /// `_peerd._tcp.DOMAIN`.
    package var serviceName: DNSName? { DNSName(dotted: serviceType).flatMap { $0.appending(domain) } }
    /// `INSTANCE._peerd._tcp.DOMAIN`.
    package var instanceName: DNSName? { serviceName.flatMap { DNSName([instance])?.appending($0) } }
    /// `HOSTLABEL.DOMAIN`.
    package var hostName: DNSName? { DNSName([hostLabel])?.appending(domain) }

    /// Every record, with the lease ending at `leaseEnds` (seconds since
    /// 1970); nil when a name does not fit DNS's limits.
    package func records(leaseEnds: UInt64) -> [DNSRecord]? {
        guard let service = serviceName, let instanceName, let hostName else { return nil }
        var records = [DNSRecord(owner: service, ttl: ttl, data: .ptr(instanceName))]
        for subtype in subtypes {
            guard let name = DNSName(dotted: subtype)?.appending(domain) else { return nil }
            records.append(DNSRecord(owner: name, ttl: ttl, data: .ptr(instanceName)))
        }
        records.append(DNSRecord(owner: instanceName, ttl: ttl, data: .srv(priority: 0, weight: 0, port: port, target: hostName)))
        let strings = (txt + [TXTEntry(key: Self.nameKey, value: instance), TXTEntry(key: Self.leaseKey, value: String(leaseEnds))]).map { Array($0.encoded.utf8.prefix(255)) }
        records.append(DNSRecord(owner: instanceName, ttl: ttl, data: .txt(strings)))
        for address in addresses {
            records.append(DNSRecord(owner: hostName, ttl: ttl, data: address.family == .ipv4 ? .a(address.text) : .aaaa(address.text)))
        }
        return records
    }

    /// The update that makes the zone hold these records (lease to
    /// `leaseEnds`), replacing `previous` (what this host published
    /// before, perhaps under another name): its pointers go one by one,
    /// since other hosts' share their names, and its instance and host
    /// names go whole.
    package func update(zone: DNSName, leaseEnds: UInt64, replacing previous: WideAreaPublication?) -> DNSUpdate? {
        guard let records = records(leaseEnds: leaseEnds), let instanceName, let hostName else { return nil }
        var deletions: [DNSUpdate.Deletion] = [.name(instanceName), .name(hostName)]
        if let previous, let old = previous.records(leaseEnds: 0) {
            for record in old where record.kind == .ptr && !records.contains(where: { $0.owner == record.owner && $0.data == record.data }) {
                deletions.append(.record(record))
            }
            if let oldInstance = previous.instanceName, oldInstance != instanceName { deletions.append(.name(oldInstance)) }
        }
        return DNSUpdate(zone: zone, deletions: deletions, additions: records)
    }

    /// The update that takes every record of this publication away.
    package func removal(zone: DNSName) -> DNSUpdate? {
        guard let records = records(leaseEnds: 0), let instanceName, let hostName else { return nil }
        let pointers = records.filter { $0.kind == .ptr }.map { DNSUpdate.Deletion.record($0) }
        return DNSUpdate(zone: zone, deletions: pointers + [.name(instanceName), .name(hostName)], additions: [])
    }
}
