/// Typed error codes of the control protocol.
public enum ControlErrorCode: String, Codable, Sendable, CaseIterable {
    /// The line is not valid JSON or lacks required fields.
    case badRequest
    /// `v` is not a version this daemon speaks.
    case unsupportedVersion
    /// `method` is not known.
    case unknownMethod
    /// A parameter is missing or malformed.
    case invalidParams
    /// The client is neither root nor in the `peerd` group (see `--public-read`).
    case permissionDenied
    /// No peer matches the selector.
    case notFound
    /// More than one peer matches the selector.
    case ambiguous
    /// A subscriber fell too far behind and was dropped.
    case overloaded
    /// The daemon is shutting down.
    case shuttingDown
    /// The peer has no connected session (for `send`).
    case notConnected
    /// The session's send queue is full: wait and retry.
    case busy
    /// The peer cannot be dialled (no endpoint, or the session limit).
    case unreachable
    /// `pairAccept`: the code does not match; the pairing failed.
    case wrongCode
    /// The trust store or a queue could not be written.
    case storageFailed
    /// The peer's durable queue is full (64 MiB).
    case queueFull
    /// Anything else; the message says what.
    case `internal`
}
