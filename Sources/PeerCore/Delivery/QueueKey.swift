package import FoundationEssentials
package import PeerProtocol

/// One durable queue: a peer's messages of one app (the default app's is
/// the queue every release has).
package struct QueueKey: Hashable, Sendable {
    /// The peer.
    package var peer: UUID
    /// The app.
    package var app: AppName

    /// A key.
    package init(peer: UUID, app: AppName = .none) {
        self.peer = peer
        self.app = app
    }

    /// The store's name of the queue for `peerID` and `app`: the peer id
    /// for the default app, `<peer id>.<app>` for an app.
    package static func storeName(peerID: String, app: AppName) -> String {
        app.isDefault ? peerID : peerID + "." + app.text
    }

    /// The peer id and app of a store name (``storeName(peerID:app:)``),
    /// or nil for a name that is neither.
    package static func parse(storeName: String) -> (peerID: String, app: AppName)? {
        let parts = storeName.split(separator: ".", maxSplits: 1).map(String.init)
        guard let peerID = parts.first, !peerID.isEmpty else { return nil }
        guard parts.count == 2 else { return (peerID, .none) }
        guard let app = try? AppName(parts[1]) else { return nil }
        return (peerID, app)
    }
}
