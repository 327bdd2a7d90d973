/// The invitation a session's peer sent (invitee side), as the session
/// lifecycle accepted it: what a client is asked about, and what the
/// daemon asks again once it knows the peer's row.
package struct ReceivedInvitation: Equatable, Sendable {
    /// The name the peer gave.
    package let name: String
    /// The peer's context bytes.
    package let context: [UInt8]
    /// How long the invitation waits for an answer, clamped to the limit.
    package let timeoutSeconds: Int
    /// Whether the session is opened to pair.
    package let pairing: Bool
    /// The app the session is asked for ("" for the default app): with
    /// one, the app's rules decide, and the session carries apps alone.
    package let app: String

    /// Creates it.
    package init(name: String, context: [UInt8], timeoutSeconds: Int, pairing: Bool, app: String = "") {
        self.name = name
        self.context = context
        self.timeoutSeconds = timeoutSeconds
        self.pairing = pairing
        self.app = app
    }
}
