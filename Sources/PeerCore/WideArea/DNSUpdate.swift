/// One DNS UPDATE (RFC 2136 §2.5), as the publisher decides it: what goes
/// from the zone and what comes in, applied by the server all together or
/// not at all. ldns encodes it and signs it with TSIG.
package struct DNSUpdate: Hashable, Sendable {
    /// What an update removes.
    package enum Deletion: Hashable, Sendable {
        /// Every record of one type at a name (§2.5.2).
        case rrset(DNSName, DNSRecord.Kind)
        /// Every record at a name (§2.5.3).
        case name(DNSName)
        /// One record, matched by its data (§2.5.4): a shared PTR set
        /// loses only this host's pointer.
        case record(DNSRecord)
    }

    /// The zone the update is for.
    package var zone: DNSName
    /// Removals, applied first.
    package var deletions: [Deletion]
    /// Additions.
    package var additions: [DNSRecord]

    /// An update.
    package init(zone: DNSName, deletions: [Deletion], additions: [DNSRecord]) {
        self.zone = zone
        self.deletions = deletions
        self.additions = additions
    }
}
