import Glibc
import PeerCore

/// Reads a Unix socket peer's credentials from the kernel.
package enum PeerCredentials {
    /// `SO_PEERCRED` (pid, uid, gid) and `SO_PEERGROUPS` (supplementary groups).
    package static func of(_ descriptor: FileDescriptor) throws(SystemError) -> ClientCredentials {
        // struct ucred { pid_t pid; uid_t uid; gid_t gid; }, which Glibc's
        // module does not export without _GNU_SOURCE: read it as three words.
        var words = [UInt32](repeating: 0, count: 3)
        var length = socklen_t(12)
        try Syscall.call("getsockopt", "SO_PEERCRED") {
            words.withUnsafeMutableBytes { getsockopt(descriptor.rawValue, SOL_SOCKET, SO_PEERCRED, $0.baseAddress, &length) }
        }
        var groups = [UInt32](repeating: 0, count: 256)
        var groupsLength = socklen_t(groups.count * 4)
        let result = groups.withUnsafeMutableBytes { getsockopt(descriptor.rawValue, SOL_SOCKET, SO_PEERGROUPS, $0.baseAddress, &groupsLength) }
        let supplementary = result == 0 ? Array(groups.prefix(Int(groupsLength) / 4)) : []
        return ClientCredentials(pid: Int32(bitPattern: words[0]), uid: words[1], gid: words[2], groups: supplementary)
    }

    /// The gid of group `name`, if it exists.
    package static func groupID(named name: String) -> UInt32? {
        guard let entry = getgrnam(name) else { return nil }
        return entry.pointee.gr_gid
    }

    /// The uid of user `name`, if it exists.
    package static func userID(named name: String) -> UInt32? {
        guard let entry = getpwnam(name) else { return nil }
        return entry.pointee.pw_uid
    }

    /// A configured app reservation with its user or group found: digits
    /// are an id as they stand, a name is looked up; nil when no such user
    /// or group exists.
    package static func reservation(_ rule: AppReservationRule) -> AppReservation? {
        switch rule {
        case .user(let who): (UInt32(who) ?? userID(named: who)).map(AppReservation.user)
        case .group(let who): (UInt32(who) ?? groupID(named: who)).map(AppReservation.group)
        }
    }
}
