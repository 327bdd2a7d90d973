/// Who may do what on the control socket.
///
/// Root and members of the daemon's group (`peerd`) may do everything.
/// Anyone else is refused, except that with `--public-read` they may read
/// `status` and `peers`.
package import PeerProtocol
package struct AccessPolicy: Sendable, Equatable {
    /// The gid of the `peerd` group, if it exists.
    package var groupID: UInt32?
    /// Whether others may read `status` and `peers`.
    package var publicRead: Bool
    /// The methods `--public-read` opens.
    package static let publicMethods: Set<ControlMethod> = [.status, .peers]

    /// Creates a policy.
    package init(groupID: UInt32?, publicRead: Bool) {
        self.groupID = groupID
        self.publicRead = publicRead
    }

    /// Whether `client` is root or in the group.
    package func isPrivileged(_ client: ClientCredentials) -> Bool {
        if client.uid == 0 { return true }
        guard let groupID else { return false }
        return client.gid == groupID || client.groups.contains(groupID)
    }

    /// Whether `client` may call `method`.
    package func allows(_ method: ControlMethod, for client: ClientCredentials) -> Bool {
        isPrivileged(client) || (publicRead && Self.publicMethods.contains(method))
    }
}
