/// Why a transfer or a stream ended before its end (the `cancel` and
/// `reset` messages, docs/protocol.md §8, and the `transferFailed` and
/// stream events). The one-byte codes are the protocol: written out and
/// pinned by `WireValuesTests`, so reordering cases never changes them.
public enum FlowEndReason: String, Sendable, Equatable, Codable, CaseIterable {
    /// A user or program on the sending side stopped it.
    case cancelled = "cancelled"
    /// The receiver declined the offer (or every file of it).
    case declined = "declined"
    /// Nobody decided on the offer in time.
    case timedOut = "timedOut"
    /// The receiver's disk has no room for it.
    case noSpace = "noSpace"
    /// Reading or writing a file failed (the text says which call and why).
    case ioError = "ioError"
    /// A block or file did not match its hash, or the source file changed
    /// while it was being sent.
    case verifyFailed = "verifyFailed"
    /// The other side broke the rules of §8 (data past its credit, an
    /// offset out of order, a file that was not accepted).
    case protocolError = "protocolError"
    /// The receiver has too many transfers or streams open already.
    case busy = "busy"
    /// A stream's local end went away (its program exited or closed the pipe).
    case closed = "closed"
    /// A stream was opened with a name nobody on the other side is waiting for.
    case unknownName = "unknownName"
    /// The peer's release does not speak the feature (a transfer waiting
    /// for a session found a peer without `files`). Ended here; 0.2.0
    /// never sends it, and the code is kept for it.
    case unsupported = "unsupported"

    /// The one-byte wire code.
    public var code: UInt8 {
        switch self {
        case .cancelled: 1
        case .declined: 2
        case .timedOut: 3
        case .noSpace: 4
        case .ioError: 5
        case .verifyFailed: 6
        case .protocolError: 7
        case .busy: 8
        case .closed: 9
        case .unknownName: 10
        case .unsupported: 11
        }
    }

    /// The reason for a wire code; an unknown code reads as `protocolError`
    /// (a later version may add reasons, and the flow ends either way).
    public init(code: UInt8) {
        self = Self.allCases.first { $0.code == code } ?? .protocolError
    }
}
