/// Why an app's state with a peer went back to `notConnected` (issue 23,
/// point 3). The raw values are what clients see; ``code`` is what
/// `appDecline` and `appLeave` carry (docs/protocol.md §10), pinned by
/// tests: a new reason is a new code, never a changed one.
public enum AppEndReason: String, Codable, Sendable, CaseIterable {
    /// The other side's client declined the invitation.
    case declined = "declined"
    /// No client holds the app on the other host: declined at once.
    case noClient = "noClient"
    /// The invitation was not answered in time.
    case timedOut = "timedOut"
    /// The app left (its last client closed, or it was removed), here or there.
    case left = "left"
    /// The session between the hosts ended (never on the wire).
    case sessionEnded = "sessionEnded"

    /// The wire code.
    public var code: UInt8 {
        switch self {
        case .declined: 1
        case .noClient: 2
        case .timedOut: 3
        case .left: 4
        case .sessionEnded: 5
        }
    }

    /// The reason of a wire code; an unknown code (a later release's) is
    /// read as `left`, which ends the state as every reason does.
    public init(code: UInt8) {
        self = Self.allCases.first { $0.code == code } ?? .left
    }
}
