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
    /// The initiator's 6-digit code, once both nonces are known. Only the
    /// initiator shows it (passkey entry, docs/security.md): on the
    /// responder it is always absent, and its user types the code the
    /// other host shows.
    public var code: String?
    /// Responder: true once the pairing waits for its user to type the
    /// code shown on the initiator (`pairAccept` is taken from then on).
    public var awaitingCode: Bool?
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
