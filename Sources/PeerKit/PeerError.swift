import PeerProtocol
import PeerSystem

/// Why a PeerKit call failed: the one error type of the library.
///
///     do { try await client.send(data, to: [peer]) }
///     catch PeerError.daemon(.notConnected, let words, _) { print(words) }
public enum PeerError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The daemon refused the request: its code, its words, and the
    /// parameter at fault where it named one.
    case daemon(ControlErrorCode, String, field: String?)
    /// The peer's release cannot do it (no such wire feature there);
    /// nothing was sent.
    case unsupported(feature: String, release: String, String)
    /// No daemon answers at `path` (not running, or this user may not use
    /// its socket: `errno` says which).
    case unreachable(path: String, errno: Int32, String)
    /// The daemon took the connection but turned it away at a client limit.
    case refused(String)
    /// The connection broke, or carried something that is not the protocol.
    case transport(String)
    /// No answer in time.
    case timedOut

    /// The error a daemon's answer carries.
    public init(_ error: ControlError) {
        if error.code == .unsupported, let feature = error.feature, let release = error.release {
            self = .unsupported(feature: feature, release: release, error.message)
        } else {
            self = .daemon(error.code, error.message, field: error.field)
        }
    }

    /// The error of the blocking client underneath.
    init(_ error: ControlClientError) {
        switch error {
        case .daemon(let error): self.init(error)
        case .unreachable(let path, let cause): self = .unreachable(path: path, errno: cause.errno, error.description)
        case .refused: self = .refused(error.description)
        case .noAnswer: self = .timedOut
        case .transport(let words): self = .transport(words)
        case .timedOut: self = .timedOut
        }
    }

    /// Words for people.
    public var description: String {
        switch self {
        case .daemon(let code, let words, _): "\(words) (\(code.rawValue))"
        case .unsupported(_, _, let words), .unreachable(_, _, let words), .refused(let words), .transport(let words): words
        case .timedOut: "timed out"
        }
    }
}
