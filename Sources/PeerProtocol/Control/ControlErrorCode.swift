/// Typed error codes of the control protocol.
public enum ControlErrorCode: String, Codable, Sendable, CaseIterable {
    /// The line is not valid JSON or lacks required fields.
    case badRequest = "badRequest"
    /// `v` is not a version this daemon speaks.
    case unsupportedVersion = "unsupportedVersion"
    /// `method` is not known.
    case unknownMethod = "unknownMethod"
    /// A parameter is missing or malformed.
    case invalidParams = "invalidParams"
    /// The client is neither root nor in the `peerd` group (see `--public-read`).
    case permissionDenied = "permissionDenied"
    /// No peer matches the selector.
    case notFound = "notFound"
    /// More than one peer matches the selector.
    case ambiguous = "ambiguous"
    /// A subscriber fell too far behind and was dropped.
    case overloaded = "overloaded"
    /// The daemon is shutting down.
    case shuttingDown = "shuttingDown"
    /// The peer has no connected session (for `send`).
    case notConnected = "notConnected"
    /// The session's send queue is full: wait and retry.
    case busy = "busy"
    /// The peer cannot be dialled (no endpoint, or the session limit).
    case unreachable = "unreachable"
    /// `pairAccept`: the code does not match; the pairing failed.
    case wrongCode = "wrongCode"
    /// The trust store or a queue could not be written.
    case storageFailed = "storageFailed"
    /// The peer's durable queue is full (64 MiB).
    case queueFull = "queueFull"
    /// The peer's release cannot do what was asked (it did not announce
    /// the wire feature): nothing was sent, and the session stays up. The
    /// message names the peer's release and the feature.
    case unsupported = "unsupported"
    /// The peer's daemon refuses this app's messages for now (its inbox
    /// for the app is full, or no client holds the app there; issue 23):
    /// nothing was sent. `send --queue` waits for it; a plain send may be
    /// tried again later.
    case appBusy = "appBusy"
    /// Anything else; the message says what.
    case `internal`
}
