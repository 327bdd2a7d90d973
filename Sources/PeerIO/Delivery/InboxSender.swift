import FoundationEssentials

/// The sender of a message in the inbox, as clients see it.
package struct InboxSender {
    /// Its row's UUID, if it has one.
    package var uuid: UUID?
    /// Its name, if known.
    package var name: String?
    /// Whether it is paired.
    package var paired: Bool

    /// Creates it.
    package init(uuid: UUID?, name: String?, paired: Bool) {
        self.uuid = uuid
        self.name = name
        self.paired = paired
    }
}
