package import FoundationEssentials
package import PeerProtocol

/// One paired peer as the trust store's file holds it (`trust.json`, a
/// ``TrustDocument``'s `peers`): the daemon's own record, apart from the
/// control protocol's ``TrustRecord`` that `paired` answers with (issue 43,
/// point 3), so the file's layout and the API a client sees can each move
/// on their own, through their own announced changes. Today the two carry
/// the same fields, and this one's keys are the file's, pinned by
/// `TrustStoreTests` against a file written by 0.3.0.
package struct TrustFileRecord: Codable, Sendable, Equatable {
    /// The peer's full static public key, 64 hex digits.
    package var publicKey: String
    /// Its peer id (fingerprint of `publicKey`).
    package var peerId: String
    /// Its display name at pairing time.
    package var name: String
    /// The UUID this host gave it; kept across restarts.
    package var uuid: UUID
    /// When the pairing completed.
    package var pairedAt: Date
    /// Where it was last connected, tried when mDNS does not show it.
    package var addresses: [Endpoint]?
    /// Its Quick Save rule (issue 45), under the key `quickSave`: an
    /// optional key a release before 0.4.0 reads past (and drops when it
    /// next writes the file: the pairing stays, the rule goes).
    package var quickSave: QuickSaveRule?

    /// Creates a record.
    package init(publicKey: String, peerId: String, name: String, uuid: UUID, pairedAt: Date) {
        self.publicKey = publicKey
        self.peerId = peerId
        self.name = name
        self.uuid = uuid
        self.pairedAt = pairedAt
    }

    /// Where to dial the peer: the endpoints mDNS `shown` now, or, when it
    /// shows none, the addresses of the last connection.
    package func dialAddresses(shown: [Endpoint]) -> [Endpoint] {
        shown.isEmpty ? (addresses ?? []) : shown
    }

    /// What `paired` shows of it.
    package var shown: TrustRecord {
        var record = TrustRecord(publicKey: publicKey, peerId: peerId, name: name, uuid: uuid, pairedAt: pairedAt)
        record.addresses = addresses
        record.quickSave = quickSave
        return record
    }
}
