import PeerProtocol

/// Where the daemon's control socket is, found the way peerctl finds it.
public enum SocketPath {
    /// The socket a system peerd listens on.
    public static let system = ControlProtocol.systemSocketPath

    /// `explicit` when given, else `$PEERD_SOCKET` when set and not empty,
    /// else ``system``.
    ///
    ///     let path = SocketPath.resolve()   // "/run/peerd/peerd.sock" on most hosts
    public static func resolve(_ explicit: String? = nil, environment: [String: String] = Environment.current) -> String {
        if let explicit, !explicit.isEmpty { return explicit }
        if let set = environment["PEERD_SOCKET"], !set.isEmpty { return set }
        return system
    }
}
