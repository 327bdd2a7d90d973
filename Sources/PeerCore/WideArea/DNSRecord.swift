/// One resource record, as peerd publishes and reads them for wide-area
/// DNS-SD (RFC 6763 over unicast DNS). ldns turns these into packets and
/// back; class is always IN.
package struct DNSRecord: Hashable, Sendable {
    /// The record types peerd uses, with their numbers (RFC 1035, 2782, 3596).
    package enum Kind: UInt16, Sendable, CaseIterable {
        case a = 1
        case soa = 6
        case ptr = 12
        case txt = 16
        case aaaa = 28
        case srv = 33
    }

    /// A record's data.
    package enum Data: Hashable, Sendable {
        /// A pointer: a service type's instance, or a browse domain.
        case ptr(DNSName)
        /// Where an instance is served (RFC 2782).
        case srv(priority: UInt16, weight: UInt16, port: UInt16, target: DNSName)
        /// An instance's key=value strings, each at most 255 bytes.
        case txt([[UInt8]])
        /// An IPv4 address in dotted text.
        case a(String)
        /// An IPv6 address in text.
        case aaaa(String)
        /// A zone's start of authority: its primary server and serial, the
        /// fields peerd reads (to find the server, and to notice a change).
        case soa(primary: DNSName, serial: UInt32)

        /// The data's record type.
        package var kind: Kind {
            switch self {
            case .ptr: .ptr
            case .srv: .srv
            case .txt: .txt
            case .a: .a
            case .aaaa: .aaaa
            case .soa: .soa
            }
        }
    }

    /// The owner name.
    package var owner: DNSName
    /// Seconds a cache may keep it.
    package var ttl: UInt32
    /// The data.
    package var data: Data

    /// A record.
    package init(owner: DNSName, ttl: UInt32, data: Data) {
        self.owner = owner
        self.ttl = ttl
        self.data = data
    }

    /// The record's type.
    package var kind: Kind { data.kind }
}
