import FoundationEssentials

/// A pairing in progress, as clients see it.
public struct PairingInfo: Codable, Sendable, Equatable {
    /// The pairing id, for `pairAccept`/`pairReject`.
    public var id: String
    /// The peer's UUID.
    public var peer: UUID
    /// The peer's name.
    public var name: String
    /// The peer's proven id.
    public var peerId: String
    /// Whether this host asked (`true`) or was asked.
    public var initiator: Bool
    /// The 6-digit code, once both nonces are known.
    public var code: String?
    /// When it times out.
    public var expires: Date

    /// Creates it.
    public init(id: String, peer: UUID, name: String, peerId: String, initiator: Bool, code: String?, expires: Date) {
        self.id = id
        self.peer = peer
        self.name = name
        self.peerId = peerId
        self.initiator = initiator
        self.code = code
        self.expires = expires
    }
}
