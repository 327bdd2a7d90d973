/// In a `delivered` event: the peer's daemon acknowledged every message of
/// one session up to a number.
public struct DeliveryInfo: Codable, Sendable, Equatable {
    /// The session the messages went on (`session` in the `send` result).
    public var session: Int
    /// Messages 1 through this number on that session have reached the
    /// peer's daemon (`number` in the `send` result counts the same way).
    public var through: UInt64
    /// `undelivered`: the first of the app's messages that was refused
    /// (`through` is the one before it).
    public var from: UInt64?
    /// `undelivered`: the app whose messages were refused.
    public var app: String?
    /// `undelivered`: the peer's words.
    public var text: String?

    /// Creates it (`delivered`).
    public init(session: Int, through: UInt64) {
        self.session = session
        self.through = through
    }

    /// Creates an `undelivered`'s: `app`'s messages from `first` on were refused.
    public init(session: Int, refusedFrom first: UInt64, app: String, text: String) {
        self.session = session
        through = first > 0 ? first - 1 : 0
        from = first
        self.app = app
        self.text = text
    }
}
