import PeerCore
import PeerProtocol

/// Transfers that ended, newest last, for `transfers`; and the one place
/// an end is logged and announced. Both sides of the desk end their
/// transfers through it.
@MainActor
final class TransferHistory {
    /// Finished transfers kept for `transfers`.
    static let recentKept = 50
    /// Ended transfers, newest last (at most ``recentKept``).
    private(set) var recent: [TransferInfo] = []
    private let surroundings: any TransferSurroundings
    private let logger: Logger

    /// A history whose events go out through `surroundings`.
    init(surroundings: any TransferSurroundings, logger: Logger) {
        self.surroundings = surroundings
        self.logger = logger
    }

    /// A transfer ended: `kept` (with its files when few) is remembered,
    /// the end logged, and its last event (`info`) sent.
    func ended(_ info: TransferInfo, kept: TransferInfo) {
        recent.append(kept)
        if recent.count > Self.recentKept { recent.removeFirst(recent.count - Self.recentKept) }
        let way = info.direction == .send ? "to" : "from"
        logger.info("transfer \(info.id) \(way) '\(info.name)': \(info.state.rawValue)\(info.detail.map { " (\($0))" } ?? "")")
        surroundings.transferEvent(info.state == .completed ? .transferCompleted : .transferFailed, info)
    }
}
