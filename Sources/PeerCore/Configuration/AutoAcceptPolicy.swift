/// Which invitations the daemon accepts without asking a client.
package enum AutoAcceptPolicy: String, Codable, Sendable, CaseIterable {
    /// Ask a client for every invitation.
    case none = "none"
    /// Accept paired peers; ask for the rest (the default).
    case paired = "paired"
    /// Accept everyone (for closed labs only).
    case all = "all"
}
