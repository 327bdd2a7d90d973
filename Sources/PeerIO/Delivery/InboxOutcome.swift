/// What became of a message that arrived (``InboxDelivery/arrived(_:from:now:stored:)``).
package enum InboxOutcome: Equatable {
    /// A client has it: acknowledge it.
    case accepted
    /// The inbox is storing it: the `stored` callback says how that ended.
    case storing
    /// A queued message this inbox already has (its tag's mark covers
    /// it): dropped, and acknowledged like one a client has.
    case repeated
    /// Neither: close the session as `busy` with these words.
    case refused(String)
}
