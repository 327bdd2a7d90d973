/// Whether a session has a pairing (``InboundRoute/of(_:canSendData:canCarryPairing:sent:pairing:)``).
package enum PairingPresence: Sendable, Equatable {
    /// No pairing was started on the session.
    case none
    /// A pairing is under way.
    case running
    /// The session's pairing ended (confirmed or failed).
    case finished
}
