/// Where a transfer stands (docs/control-protocol.md, "Transfers").
public enum TransferState: String, Codable, Sendable, CaseIterable {
    /// Sending: the offer is out, no answer yet. Receiving: a client must
    /// decide (`acceptTransfer` or `declineTransfer`), or it waits for
    /// one until it expires.
    case offered = "offered"
    /// Bytes are moving.
    case active = "active"
    /// The session is gone; it resumes when one is back (by itself between
    /// paired peers; otherwise `send-file --resume ID`).
    case interrupted = "interrupted"
    /// Every accepted file is in place.
    case completed = "completed"
    /// The receiver declined it whole.
    case declined = "declined"
    /// One side cancelled it.
    case cancelled = "cancelled"
    /// It ended on an error (`reason`, `detail`).
    case failed = "failed"

    /// Whether it is over.
    public var isFinished: Bool { self == .completed || self == .declined || self == .cancelled || self == .failed }
}
