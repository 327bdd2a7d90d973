/// Decides whether a new control client is admitted, from who it is and who
/// is already connected. Pure: the control server performs the verdict.
///
/// Three pools, so that no one outside the group can lock out those in it:
/// - root has a pool of its own (`maxClients` connections);
/// - members of the daemon's group share `maxClients`, at most `perUser` per uid;
/// - everyone else (only with `--public-read`, or with unreadable
///   credentials) shares `maxOthers`, at most `othersPerUser` per uid.
package struct ClientAdmission: Sendable, Equatable {
    /// Who a connected or arriving client is, for admission.
    package struct Client: Sendable, Equatable, Hashable {
        /// The uid, or nil when the kernel could not say.
        package var uid: UInt32?
        /// Root or a member of the group.
        package var privileged: Bool

        /// Creates a client description.
        package init(uid: UInt32?, privileged: Bool) {
            self.uid = uid
            self.privileged = privileged
        }
    }

    /// A refusal, naming the limit that was reached.
    package enum Refusal: Sendable, Equatable, CustomStringConvertible {
        /// Root or members: `--max-clients` connections.
        case clients(Int)
        /// One member uid: its share.
        case perUser(uid: UInt32, limit: Int)
        /// Clients outside the group, together.
        case others(Int)
        /// One uid outside the group.
        case otherPerUser(uid: UInt32?, limit: Int)

        /// The text a refused client is sent.
        package var description: String {
            switch self {
            case .clients(let n): return "too many control clients (\(n), --max-clients); try again later"
            case .perUser(let uid, let n): return "uid \(uid) already has \(n) control connections (the most one user may hold)"
            case .others(let n): return "too many control clients from outside the group (\(n)); try again later"
            case .otherPerUser(let uid, let n):
                return "\(uid.map { "uid \($0)" } ?? "this client") already has \(n) control connections (the most one user outside the group may hold)"
            }
        }
    }

    /// Connections root may hold, and members together.
    package var maxClients: Int
    /// Connections one member uid may hold.
    package var perUser: Int
    /// Connections clients outside the group may hold together.
    package var maxOthers: Int
    /// Connections one uid outside the group may hold.
    package var othersPerUser: Int

    /// Limits derived from `--max-clients`: a quarter each for one member
    /// (at least 4), for everyone outside the group (at least 2), and 4 for
    /// one uid outside it.
    package init(maxClients: Int) {
        self.maxClients = maxClients
        perUser = max(4, maxClients / 4)
        maxOthers = max(2, maxClients / 4)
        othersPerUser = min(4, max(2, maxClients / 4))
    }

    /// Whether `client` may connect while `connected` are.
    package func admit(_ client: Client, connected: [Client]) -> Refusal? {
        if client.uid == 0 {
            return connected.filter { $0.uid == 0 }.count < maxClients ? nil : .clients(maxClients)
        }
        let sameUser = connected.filter { $0.uid == client.uid && $0.privileged == client.privileged }.count
        if client.privileged {
            let members = connected.filter { $0.privileged && $0.uid != 0 }.count
            if members >= maxClients { return .clients(maxClients) }
            if let uid = client.uid, sameUser >= perUser { return .perUser(uid: uid, limit: perUser) }
            return nil
        }
        if connected.filter({ !$0.privileged }).count >= maxOthers { return .others(maxOthers) }
        if sameUser >= othersPerUser { return .otherPerUser(uid: client.uid, limit: othersPerUser) }
        return nil
    }
}
