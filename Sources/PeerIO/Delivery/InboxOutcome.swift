/// What became of a message that arrived (``InboxDelivery/arrived(_:from:now:stored:)``).
public enum InboxOutcome: Equatable {
    /// A client has it: acknowledge it.
    case accepted
    /// The inbox is storing it: the `stored` callback says how that ended.
    case storing
    /// Neither: close the session as `busy` with these words.
    case refused(String)
}
