/// Who is on the other end of a control connection, as the kernel says
/// (`SO_PEERCRED`, `SO_PEERGROUPS`): never what the client claims.
package struct ClientCredentials: Sendable, Equatable {
    /// Process id.
    package var pid: Int32
    /// User id.
    package var uid: UInt32
    /// Primary group id.
    package var gid: UInt32
    /// Supplementary group ids.
    package var groups: [UInt32]

    /// Creates credentials.
    package init(pid: Int32, uid: UInt32, gid: UInt32, groups: [UInt32]) {
        self.pid = pid
        self.uid = uid
        self.gid = gid
        self.groups = groups
    }
}
