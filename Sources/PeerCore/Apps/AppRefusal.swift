/// Why the registry refused a registration, a declaration or a removal
/// (``AppRegistry``); the description gives the holder or the numbers.
package import PeerProtocol
package enum AppRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another uid holds the name.
    case heldByOther(name: AppName, uid: UInt32)
    /// The configuration keeps the name for someone else.
    case reserved(name: AppName, for: String)
    /// This host already has ``AppRegistry/maxApps`` apps, counting the
    /// slots kept for reserved names not registered yet.
    case tooMany(max: Int, keptForReserved: Int)
    /// The uid's share (``AppShares``) of `what` is full: it `holds` so
    /// much, and its share is `share`.
    case shareFull(uid: UInt32, what: String, holds: Int, share: Int)
    /// The TXT record would grow past its limit.
    case recordFull(name: AppName, bytes: Int, max: Int)
    /// `apps remove` of a name that is not declared.
    case notDeclared(AppName)

    /// Whether this is a matter of who asks (`permissionDenied`) rather
    /// than of what is asked (`invalidParams`).
    package var isPermission: Bool {
        switch self {
        case .heldByOther, .reserved, .shareFull: true
        case .tooMany, .recordFull, .notDeclared: false
        }
    }

    /// The refusal in words.
    package var description: String {
        switch self {
        case .heldByOther(let name, let uid): "app \(name) is held by uid \(uid)"
        case .reserved(let name, let holder): "app \(name) is reserved for \(holder) by the configuration"
        case .tooMany(let max, let kept):
            "this host has \(max) apps registered, the most it keeps\(kept > 0 ? " (\(kept) of them kept for names the configuration reserves)" : "")"
        case .shareFull(let uid, let what, let holds, let share):
            "uid \(uid) holds \(holds) \(what), its share of this host's is \(share); remove one of its apps (peerctl apps) first"
        case .recordFull(let name, let bytes, let max):
            "registering app \(name) would make this host's TXT record \(bytes) bytes; at most \(max) are allowed (shorten its info or another app's)"
        case .notDeclared(let name): "app \(name) is not declared"
        }
    }
}
