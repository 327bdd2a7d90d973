internal import FoundationEssentials
package import PeerProtocol

/// Which events a subscriber in an app gets (`subscribe` with `app`; issue
/// 23, point 2): events about peers that run the app (their rows list it),
/// and one more about a peer that stopped (so its `peerUpdated` without
/// the app is seen); events about no peer; the app's own events; never
/// another app's, the default app's invitations and transfers included.
/// The default app's subscribers have no filter.
package struct AppEventFilter: Sendable, Equatable {
    /// The app.
    package let app: String
    /// Peers shown as running the app, whose next event goes even without it.
    private var shown: Set<UUID> = []

    /// A filter for `app`.
    package init(app: String) { self.app = app }

    /// Whether `event` goes to the subscriber; remembers which peers it showed.
    package mutating func passes(_ event: ControlEvent) -> Bool {
        // An invitation or a transfer is always some app's: without `app`,
        // the default app's, which is another app's to this subscriber.
        if let owner = event.invitation.map({ $0.app ?? "" }) ?? event.transfer.map({ $0.app ?? "" }) {
            return owner == app
        }
        if let tagged = event.app?.app ?? event.invitation?.app ?? event.message?.app ?? event.delivery?.app ?? event.stored?.app
            ?? event.transfer?.app {
            return tagged == app
        }
        guard let peer = event.peer else { return true }
        if peer.apps?[app] != nil {
            shown.insert(peer.id)
            return true
        }
        return shown.remove(peer.id) != nil
    }
}
