import PeerCore

/// A server's answer to one query: its rcode and the records of each
/// section that peerd reads (others are left out).
package struct DNSAnswer: Sendable, Equatable {
    /// The rcode (0: no error, 3: no such name).
    package var rcode: UInt8
    /// The answer section.
    package var answer: [DNSRecord]
    /// The authority section (a zone's SOA for an empty answer).
    package var authority: [DNSRecord]
    /// The additional section.
    package var additional: [DNSRecord]
}
