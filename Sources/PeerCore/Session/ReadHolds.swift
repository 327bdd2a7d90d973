/// Who is holding a session's reading back for its local clients. Each
/// holder sets and clears only its own bit, so one letting go never
/// releases a session another still holds: a slow subscriber and a full
/// message channel can hold the same session at once.
package struct ReadHolds: OptionSet, Sendable, Hashable {
    /// The bits (never on the wire or on disk).
    package let rawValue: UInt8

    /// The holds in `rawValue`.
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    /// A subscriber of events is behind (``SubscriberFlowHold``).
    package static let subscribers = ReadHolds(rawValue: 1 << 0)
    /// The message channel joined to the session has a full output.
    package static let channel = ReadHolds(rawValue: 1 << 1)
}
