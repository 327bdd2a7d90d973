import FoundationEssentials

/// One paired peer in the trust store.
public struct TrustRecord: Codable, Sendable, Equatable {
    /// The peer's full static public key, 64 hex digits.
    public var publicKey: String
    /// Its peer id (fingerprint of `publicKey`).
    public var peerId: String
    /// Its display name at pairing time.
    public var name: String
    /// The UUID this host gave it; kept across restarts.
    public var uuid: UUID
    /// When the pairing completed.
    public var pairedAt: Date
    /// Where it was last connected, tried when mDNS does not show it (for
    /// example when a flood of fake services has filled Avahi's cache).
    public var addresses: [Endpoint]?
    /// Its Quick Save rule, if one is set (since 0.4.0).
    public var quickSave: QuickSaveRule?

    /// Where to dial the peer: the endpoints mDNS `shown` now, or, when it
    /// shows none (a peer added by address, or one hidden by a partition),
    /// the addresses of the last connection.
    public func dialAddresses(shown: [Endpoint]) -> [Endpoint] {
        shown.isEmpty ? (addresses ?? []) : shown
    }

    /// Creates a record.
    public init(publicKey: String, peerId: String, name: String, uuid: UUID, pairedAt: Date) {
        self.publicKey = publicKey
        self.peerId = peerId
        self.name = name
        self.uuid = uuid
        self.pairedAt = pairedAt
    }
}
