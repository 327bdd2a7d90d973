/// The TXT record peerd publishes: `txtvers=1`, `id=<peer id>`, then the
/// user's `--info` pairs, validated against the DNS-SD limits.
internal import PeerProtocol
package struct TXTRecord: Equatable, Sendable {
    /// RFC 6763 §6.4 recommends keys of at most 9 characters.
    package static let maxKeyLength = 9
    /// One TXT string is length-prefixed by a single byte.
    package static let maxPairBytes = 255
    /// Keeps the whole announcement inside one Ethernet-sized mDNS packet
    /// (RFC 6763 §6.2 suggests staying under 1300 bytes).
    package static let maxRecordBytes = 1300
    /// The TXT format version peerd speaks.
    package static let version = TXTVersion.current
    /// Keys peerd writes itself.
    package static let reservedKeys: Set<String> = ["txtvers", "id"]
    /// The key of the datagram path's UDP port (docs/protocol.md §11).
    /// Not reserved: a user's own `--info dgram=…` (from before 0.3.0)
    /// stays, and the port is then not published (the session says it anyway).
    package static let datagramPortKey = "dgram"

    /// The entries in publication order.
    package private(set) var entries: [TXTEntry]

    /// Builds and validates the record for `peerID` with the user's info
    /// pairs, and the datagram path's UDP port when there is one.
    package init(peerID: String, info: [TXTEntry], datagramPort: UInt16? = nil) throws(TXTRecordError) {
        var seen = Set<String>()
        for entry in info {
            let lower = entry.key.lowercased()
            if entry.key.isEmpty { throw .emptyKey(entry.encoded) }
            if entry.key.count > Self.maxKeyLength { throw .keyTooLong(key: entry.key, length: entry.key.count) }
            if !entry.key.unicodeScalars.allSatisfy({ $0.value >= 0x20 && $0.value <= 0x7E && $0 != "=" }) {
                throw .keyInvalid(entry.key)
            }
            if Self.reservedKeys.contains(lower) { throw .keyReserved(entry.key) }
            if !seen.insert(lower).inserted { throw .duplicateKey(entry.key) }
            let bytes = entry.encoded.utf8.count
            if bytes > Self.maxPairBytes { throw .pairTooLong(key: entry.key, bytes: bytes) }
        }
        entries = [TXTEntry(key: "txtvers", value: Self.version), TXTEntry(key: "id", value: peerID)] + info
        if let datagramPort, datagramPort != 0, !seen.contains(Self.datagramPortKey) {
            entries.append(TXTEntry(key: Self.datagramPortKey, value: String(datagramPort)))
        }
        let total = Self.wireSize(of: entries)
        if total > Self.maxRecordBytes { throw .recordTooLong(bytes: total) }
    }

    /// Parses one `--info key=value` argument.
    package static func parseInfo(_ argument: String) throws(TXTRecordError) -> TXTEntry {
        guard argument.contains("=") else { throw .missingEquals(argument) }
        return TXTEntry(raw: argument)
    }

    /// Bytes on the wire: each string plus its one-byte length prefix.
    package static func wireSize(of entries: [TXTEntry]) -> Int {
        entries.reduce(0) { $0 + 1 + $1.encoded.utf8.count }
    }
}
