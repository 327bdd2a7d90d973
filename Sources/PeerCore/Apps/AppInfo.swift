/// One app's discovery info (MPC's `discoveryInfo`): key=value pairs that
/// reach other hosts without a session, in this host's TXT record as
/// `NAME.KEY=VALUE` strings (docs/protocol.md §2).
///
/// Keys follow peerd's own `--info` keys (1 to 9 printable ASCII
/// characters, no `=`, no two alike ignoring case); values hold no control
/// character (C0, DEL, C1); each published string
/// fits one TXT string (255 bytes, the app's name and the dot included);
/// and one app's strings take at most ``maxBytes`` of the record, so one
/// app cannot crowd the others out of the host's 1300 bytes.
package import PeerProtocol
package struct AppInfo: Equatable, Sendable {
    /// The most TXT bytes one app's info takes (each string with its
    /// length byte).
    package static let maxBytes = 400

    /// The pairs, in the order given.
    package let entries: [TXTEntry]

    /// No info.
    package static let empty = AppInfo(checked: [])

    private init(checked entries: [TXTEntry]) { self.entries = entries }

    /// `entries` as `app`'s info, or why not.
    package init(_ entries: [TXTEntry], for app: AppName) throws(AppInfoProblem) {
        var seen = Set<String>()
        for entry in entries {
            if entry.key.isEmpty { throw .emptyKey(entry.encoded) }
            if entry.key.count > TXTRecord.maxKeyLength { throw .keyTooLong(key: entry.key, characters: entry.key.count) }
            if !entry.key.unicodeScalars.allSatisfy({ $0.value >= 0x21 && $0.value <= 0x7E && $0 != "=" }) {
                throw .keyInvalid(entry.key)
            }
            if entry.value.unicodeScalars.contains(where: { $0.properties.generalCategory == .control }) {
                throw .valueInvalid(key: entry.key)
            }
            if !seen.insert(entry.key.lowercased()).inserted { throw .duplicateKey(entry.key) }
            let bytes = Self.published(entry, for: app).encoded.utf8.count
            if bytes > TXTRecord.maxPairBytes { throw .pairTooLong(key: entry.key, bytes: bytes) }
        }
        let total = TXTRecord.wireSize(of: entries.map { Self.published($0, for: app) })
        if total > Self.maxBytes { throw .tooLong(bytes: total) }
        self.entries = entries
    }

    /// The TXT strings this info is published as.
    package func published(for app: AppName) -> [TXTEntry] { entries.map { Self.published($0, for: app) } }

    private static func published(_ entry: TXTEntry, for app: AppName) -> TXTEntry {
        TXTEntry(key: app.text + "." + entry.key, value: entry.value)
    }
}
