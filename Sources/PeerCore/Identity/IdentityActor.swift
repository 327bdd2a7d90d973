package import FoundationEssentials
package import PeerProtocol

/// The one owner of the UUID ↔ peer mapping.
///
/// Discovery events arrive here in the order Avahi reported them (the bridge
/// feeds one ordered stream, drained by one task). A UUID is born only here.
package actor IdentityActor {
    private var registry: PeerRegistry
    private let clock: @Sendable () -> Date

    /// Creates the actor with an empty registry capped at `maxPeers` rows,
    /// `maxUnverified` (default: all) of them unverified.
    package init(maxPeers: Int, maxUnverified: Int? = nil, known: [KnownPeer] = [], clock: @escaping @Sendable () -> Date = { Date() }) {
        registry = PeerRegistry(maxPeers: maxPeers, maxUnverified: maxUnverified, known: known, now: clock())
        self.clock = clock
    }

    /// Applies a discovery event; returns the row changes it caused.
    /// `protected` rows (paired, or with a session) are never evicted.
    package func apply(_ event: DiscoveryEvent, protected: Set<UUID> = []) -> [PeerChange] {
        registry.apply(event, now: clock(), protected: protected, makeID: { UUID() })
    }

    /// An endpoint of row `id` proved another key: it leaves the row.
    package func refuseEndpoint(_ endpoint: Endpoint, of id: UUID) -> [PeerChange] {
        registry.refuseEndpoint(endpoint, of: id, now: clock())
    }

    /// Every row, in first-seen order.
    package func snapshots() -> [PeerSnapshot] { registry.snapshots }


    /// Rows made from mDNS alone whose key no handshake has proven.
    package func unverifiedCount() -> Int { registry.unverifiedCount }

    /// A session reached `peerID` at `address`, and it gave `name` there
    /// (``PeerRegistry/learned(peerID:name:address:)``); the changes to publish.
    package func learned(peerID: String, name: String?, address: String?) -> [PeerChange] {
        registry.learned(peerID: peerID, name: name, address: address)
    }

    /// A handshake on a connection we dialled proved `peerID`.
    package func markVerified(peerID: String) { registry.markVerified(peerID: peerID) }

    /// The row for a peer that proved `peerID` on a connection, made if
    /// needed (evicting an unprotected empty row at the cap; nil when none
    /// can go), and the changes to publish.
    package func adopt(peerID: String, name: String, protected: Set<UUID> = []) -> (snapshot: PeerSnapshot, changes: [PeerChange])? {
        registry.adopt(peerID: peerID, name: name, now: clock(), protected: protected, makeID: { UUID() })
    }
}
