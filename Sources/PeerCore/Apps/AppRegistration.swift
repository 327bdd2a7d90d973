/// One app registered on this host (``AppRegistry``): who holds it, what it
/// advertises, and what keeps it: the control connections that registered
/// it (live) and whether it was declared (kept across restarts).
package import PeerProtocol
package struct AppRegistration: Sendable, Equatable {
    /// The app.
    package let name: AppName
    /// The uid that holds it: the first to register it. Another uid (root
    /// aside) can neither register it nor read its traffic.
    package let uid: UInt32
    /// What it advertises.
    package var info: AppInfo
    /// The control connections holding it live.
    package var clients: Set<Int>
    /// Whether it was declared (`peerctl apps add`, or the configuration):
    /// then it stays when its last client goes.
    package var declared: Bool

    /// A registration.
    package init(name: AppName, uid: UInt32, info: AppInfo, clients: Set<Int> = [], declared: Bool = false) {
        self.name = name
        self.uid = uid
        self.info = info
        self.clients = clients
        self.declared = declared
    }

    /// Whether anything still keeps it.
    package var isKept: Bool { declared || !clients.isEmpty }
}
