/// The states of an Avahi entry group (`AvahiEntryGroupState`) peerd acts on.
package enum EntryGroupState: Sendable, Equatable {
    /// `AVAHI_ENTRY_GROUP_UNCOMMITED` or `_REGISTERING`: nothing to do.
    case pending
    /// `AVAHI_ENTRY_GROUP_ESTABLISHED`.
    case established
    /// `AVAHI_ENTRY_GROUP_COLLISION`: our name is taken.
    case collision
    /// `AVAHI_ENTRY_GROUP_FAILURE`, with Avahi's error text.
    case failure(String)
}
