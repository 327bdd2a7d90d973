import Glibc

/// What the desktop app says when it cannot reach peerd (issue 45, point
/// 1: "states without a peer"), with what to do, as `peerctl doctor`
/// would: pure, from the socket's path and the `connect` errno.
package enum DesktopProblem {
    /// The words for `connect(path)` failing with `code`.
    package static func unreachable(path: String, errno code: Int32) -> String {
        switch code {
        case EACCES, EPERM:
            return "peerd is running, but this user may not use it (\(path): permission denied). "
                + "Join group peerd (sudo usermod -aG peerd $USER), then log in again."
        case ENOENT, ECONNREFUSED:
            return "peerd is not running (nothing answers at \(path)). "
                + "Start it with: sudo systemctl start peerd. peerctl doctor tells more."
        default:
            return "peerd cannot be reached at \(path): \(String(cString: strerror(code))). peerctl doctor tells more."
        }
    }
}
