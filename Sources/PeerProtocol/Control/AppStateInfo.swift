/// One app's state with one peer (`appStateChanged`, and `invite` for an
/// app; issue 23): MultipeerConnectivity's session state per app.
public struct AppStateInfo: Codable, Sendable, Equatable {
    /// The app.
    public var app: String
    /// `notConnected`, `connecting` or `connected`.
    public var state: ConnectionState
    /// Why it is `notConnected`, when it ended.
    public var reason: AppEndReason?
    /// The words that came with it (the peer's, for a decline or leave).
    public var detail: String?

    /// Creates it.
    public init(app: String, state: ConnectionState, reason: AppEndReason? = nil, detail: String? = nil) {
        self.app = app
        self.state = state
        self.reason = reason
        self.detail = detail
    }
}
