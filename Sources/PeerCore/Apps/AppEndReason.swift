/// Why an app's state with a peer went back to `notConnected` (issue 23,
/// point 3). The raw values are what clients see; the wire codes come
/// with the `apps` feature.
public enum AppEndReason: String, Codable, Sendable, CaseIterable {
    /// The other side's client declined the invitation.
    case declined = "declined"
    /// No client holds the app on the other host: declined at once.
    case noClient = "noClient"
    /// The invitation was not answered in time.
    case timedOut = "timedOut"
    /// The app left (its last client closed, or it was removed), here or there.
    case left = "left"
    /// The session between the hosts ended.
    case sessionEnded = "sessionEnded"
}
