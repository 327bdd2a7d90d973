import PeerProtocol

/// Where one session's file and stream bytes go (issue 44): decided when
/// the session is established, and settled once, so every flow's bytes
/// take one path for the session's life.
@MainActor
enum BulkPath {
    /// On the session's own connection, for this reason (the peer has no
    /// lane, the lane could not be opened, ...).
    case stream(reason: String)
    /// The lane is being opened: no bulk bytes are sent until it settles
    /// (at most ``BulkLanePlan/openWithin``).
    case opening
    /// On the session's bulk lane.
    case lane(BulkLane)

    /// As `peer` reports it.
    var info: BulkPathInfo {
        switch self {
        case .stream(let reason): BulkPathInfo(path: BulkPathInfo.session, reason: reason)
        case .opening: BulkPathInfo(path: BulkPathInfo.opening)
        case .lane: BulkPathInfo(path: BulkPathInfo.lane)
        }
    }
}
