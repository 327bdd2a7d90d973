/// A receiver's record that a user (or the auto-accept policy) took an
/// offer (issue 21, points 1.1 and 1.2). It lives in the state directory,
/// never in a download folder, so nothing a peer sends can name, replace
/// or forge it; and it is bound to the peer and to the hash of the
/// manifest, so the same transfer id with other files is a new offer.
///
/// On disk (`STATE_DIR/transfers/FLOW.accepted`, mode 0600), four lines:
///
///     peerd-accepted 1
///     peer <32 hex: the sender's peer id>
///     manifest <hex: BLAKE2b-512 of OfferManifest.canonicalBytes>
///     files <accepted file numbers, comma-separated>
package struct AcceptanceRecord: Sendable, Equatable {
    /// The first line, with the format's version.
    package static let magic = "peerd-accepted 1"
    /// The most bytes a record is read to (100,000 file numbers fit).
    package static let maxBytes = 1 << 20

    /// The sender's peer id.
    package var peerID: String
    /// The hash of the manifest, hex.
    package var manifest: String
    /// The accepted files, by number.
    package var files: [Int]

    /// A record.
    package init(peerID: String, manifest: String, files: [Int]) {
        self.peerID = peerID
        self.manifest = manifest
        self.files = files
    }

    /// The file's bytes.
    package var encoded: [UInt8] {
        Array("\(Self.magic)\npeer \(peerID)\nmanifest \(manifest)\nfiles \(files.map(String.init).joined(separator: ","))\n".utf8)
    }

    /// Reads a record; nil for anything that is not one, whole.
    package static func decode(_ bytes: [UInt8]) -> AcceptanceRecord? {
        guard bytes.count <= maxBytes, let text = String(validating: bytes, as: UTF8.self) else { return nil }
        let lines = text.split(separator: "\n", omittingEmptySubsequences: false)
        guard lines.count == 5, lines[0] == magic, lines[4].isEmpty,
              lines[1].hasPrefix("peer "), lines[2].hasPrefix("manifest "), lines[3].hasPrefix("files ") else { return nil }
        let peer = String(lines[1].dropFirst(5)), manifest = String(lines[2].dropFirst(9))
        guard !peer.isEmpty, !manifest.isEmpty, manifest.allSatisfy(\.isHexDigit) else { return nil }
        let list = lines[3].dropFirst(6)
        var files: [Int] = []
        if !list.isEmpty {
            for item in list.split(separator: ",", omittingEmptySubsequences: false) {
                guard let number = Int(item), number >= 0, number < OfferCheck.maxFiles else { return nil }
                files.append(number)
            }
        }
        return AcceptanceRecord(peerID: peer, manifest: manifest, files: files)
    }

    /// Whether this record accepts the offer `manifest` from `peerID`.
    package func binds(peerID: String, manifest: String) -> Bool {
        self.peerID == peerID && self.manifest == manifest
    }
}
