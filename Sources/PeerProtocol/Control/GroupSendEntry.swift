import FoundationEssentials

/// One peer's outcome of a group `send` (`peers` or `all`): the selector
/// as given, the peer it named (when it named one), and either the result
/// a single `send` would have had or its error.
public struct GroupSendEntry: Codable, Sendable, Equatable {
    /// The selector as given (the peer's UUID for `all`).
    public var selector: String
    /// The peer, when the selector named one.
    public var peer: UUID?
    /// Its name, when the selector named one.
    public var name: String?
    /// What a single `send` to it answered.
    public var result: SendResult?
    /// Why it was not sent to.
    public var error: ControlError?

    /// An entry for `selector`.
    public init(selector: String, peer: UUID? = nil, name: String? = nil, result: SendResult? = nil, error: ControlError? = nil) {
        self.selector = selector
        self.peer = peer
        self.name = name
        self.result = result
        self.error = error
    }
}
