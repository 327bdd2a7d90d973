/// Why the registry refused a registration, a declaration or a removal
/// (``AppRegistry``); the description gives the holder or the numbers.
public enum AppRefusal: Error, Equatable, Sendable, CustomStringConvertible {
    /// Another uid holds the name.
    case heldByOther(name: AppName, uid: UInt32)
    /// The configuration keeps the name for someone else.
    case reserved(name: AppName, for: String)
    /// This host already has ``AppRegistry/maxApps`` apps.
    case tooMany(max: Int)
    /// The TXT record would grow past its limit.
    case recordFull(name: AppName, bytes: Int, max: Int)
    /// `apps remove` of a name that is not declared.
    case notDeclared(AppName)

    /// Whether this is a matter of who asks (`permissionDenied`) rather
    /// than of what is asked (`invalidParams`).
    public var isPermission: Bool {
        switch self {
        case .heldByOther, .reserved: true
        case .tooMany, .recordFull, .notDeclared: false
        }
    }

    /// The refusal in words.
    public var description: String {
        switch self {
        case .heldByOther(let name, let uid): "app \(name) is held by uid \(uid)"
        case .reserved(let name, let holder): "app \(name) is reserved for \(holder) by the configuration"
        case .tooMany(let max): "this host has \(max) apps registered, the most it keeps"
        case .recordFull(let name, let bytes, let max):
            "registering app \(name) would make this host's TXT record \(bytes) bytes; at most \(max) are allowed (shorten its info or another app's)"
        case .notDeclared(let name): "app \(name) is not declared"
        }
    }
}
