/// The `take` result: messages taken from the inbox.
public struct TakeResult: Codable, Sendable, Equatable {
    /// The messages, oldest first, with their data.
    public var messages: [MessageInfo]
    /// Messages still waiting (that this request could have taken).
    public var remaining: Int

    /// Creates it.
    public init(messages: [MessageInfo], remaining: Int) {
        self.messages = messages
        self.remaining = remaining
    }
}
