import PeerProtocol

/// Where one session's file and stream bytes go (issue 44): decided when
/// the session is established, and settled once, so every flow's bytes
/// take one path for the session's life.
@MainActor
enum BulkPath {
    /// On the session's own connection, for this reason (the peer has no
    /// lane, the lane could not be opened, ...); `port` is the lane port
    /// offered, when one was, and `ours` whether this host offered it.
    case stream(reason: String, port: UInt16? = nil, ours: Bool = false)
    /// The lane is being opened: no bulk bytes are sent until it settles
    /// (at most ``BulkLanePlan/openWithin``).
    case opening
    /// On the session's bulk lane.
    case lane(BulkLane)

    /// As `peer` reports it.
    var info: BulkPathInfo {
        switch self {
        case .stream(let reason, let port, let ours):
            BulkPathInfo(path: BulkPathInfo.session, reason: reason, port: port.map(Int.init), portOf: port == nil ? nil : ours ? "self" : "peer")
        case .opening: BulkPathInfo(path: BulkPathInfo.opening)
        case .lane: BulkPathInfo(path: BulkPathInfo.lane)
        }
    }
}
