import Glibc
import PeerProtocol
import PeerSystem

/// Why a control request failed, mapped to peerctl's exit codes.
package enum ControlClientError: Error, CustomStringConvertible {
    /// The daemon could not be reached at `path` (exit 3).
    case unreachable(path: String, SystemError)
    /// The connection broke or sent garbage (exit 1).
    case transport(String)
    /// The daemon answered with an error (exit 1).
    case daemon(ControlError)
    /// A deadline passed while waiting for the daemon (exit 1).
    case timedOut
    /// The daemon took the connection but did not answer a request in
    /// time: starting and failing (under socket activation), or stuck (exit 3).
    case noAnswer(path: String, seconds: Int)
    /// The daemon refused the connection at one of its client limits
    /// (`overloaded` before any request was answered) (exit 3).
    case refused(path: String, ControlError)

    /// A message for people; for `unreachable`, how to start the daemon.
    package var description: String {
        switch self {
        case .unreachable(let path, let error):
            var hint = "Is peerd running? Start it with 'systemctl start peerd', or run 'peerd --socket \(path)' in a terminal; set --socket or PEERD_SOCKET if it listens elsewhere."
            if error.errno == EACCES { hint = "You may not use that socket: ask to join the 'peerd' group, or run as root." }
            return "cannot reach peerd at \(path): \(error). \(hint)"
        case .transport(let message): return message
        case .daemon(let error): return error.message + " (\(error.code.rawValue))"
        case .timedOut: return "timed out"
        case .refused(let path, let error):
            return "peerd at \(path) refused the connection: \(error.message) (\(error.code.rawValue))"
        case .noAnswer(let path, let seconds):
            return "peerd at \(path) did not answer within \(seconds) s. If it runs under systemd, 'systemctl status peerd' and 'journalctl -u peerd' say why."
        }
    }

    /// peerctl's exit code.
    package var exitCode: Int32 {
        switch self {
        case .unreachable, .noAnswer, .refused: return 3
        case .transport, .daemon, .timedOut: return 1
        }
    }
}

