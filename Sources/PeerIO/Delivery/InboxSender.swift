import FoundationEssentials

/// The sender of a message in the inbox, as clients see it.
public struct InboxSender {
    /// Its row's UUID, if it has one.
    public var uuid: UUID?
    /// Its name, if known.
    public var name: String?
    /// Whether it is paired.
    public var paired: Bool

    /// Creates it.
    public init(uuid: UUID?, name: String?, paired: Bool) {
        self.uuid = uuid
        self.name = name
        self.paired = paired
    }
}
