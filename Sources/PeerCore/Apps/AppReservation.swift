/// A name the configuration keeps for one user or one group
/// (`[app "chat"] user=alice` or `group=chatters`): only they (and root)
/// may register it, live or declared.
package enum AppReservation: Sendable, Equatable {
    /// Only this uid.
    case user(UInt32)
    /// Only members of this gid (primary or supplementary).
    case group(UInt32)

    /// Whether `client` may hold the name.
    package func admits(_ client: ClientCredentials) -> Bool {
        if client.uid == 0 { return true }
        switch self {
        case .user(let uid): return client.uid == uid
        case .group(let gid): return client.gid == gid || client.groups.contains(gid)
        }
    }

    /// Whom it admits, for errors: "user 1001", "group 1002".
    package var holder: String {
        switch self {
        case .user(let uid): "user \(uid)"
        case .group(let gid): "group \(gid)"
        }
    }
}
