/// In a `delivered` event: the peer's daemon acknowledged every message of
/// one session up to a number.
public struct DeliveryInfo: Codable, Sendable, Equatable {
    /// The session the messages went on (`session` in the `send` result).
    public var session: Int
    /// Messages 1 through this number on that session have reached the
    /// peer's daemon (`number` in the `send` result counts the same way).
    public var through: UInt64

    /// Creates it.
    public init(session: Int, through: UInt64) {
        self.session = session
        self.through = through
    }
}
