import FoundationEssentials

/// The one owner of the UUID ↔ peer mapping.
///
/// Discovery events arrive here in the order Avahi reported them (the bridge
/// feeds one ordered stream, drained by one task). A UUID is born only here.
public actor IdentityActor {
    private var registry: PeerRegistry
    private let clock: @Sendable () -> Date

    /// Creates the actor with an empty registry capped at `maxPeers` rows,
    /// `maxUnverified` (default: all) of them unverified.
    public init(maxPeers: Int, maxUnverified: Int? = nil, known: [KnownPeer] = [], clock: @escaping @Sendable () -> Date = { Date() }) {
        registry = PeerRegistry(maxPeers: maxPeers, maxUnverified: maxUnverified, known: known, now: clock())
        self.clock = clock
    }

    /// Applies a discovery event; returns the row changes it caused.
    public func apply(_ event: DiscoveryEvent) -> [PeerChange] {
        registry.apply(event, now: clock(), makeID: { UUID() })
    }

    /// Every row, in first-seen order.
    public func snapshots() -> [PeerSnapshot] { registry.snapshots }

    /// How many new peers the cap turned away.
    public func rejectedCount() -> Int { registry.rejectedCount }

    /// Rows made from mDNS alone whose key no handshake has proven.
    public func unverifiedCount() -> Int { registry.unverifiedCount }

    /// A handshake on a connection we dialled proved `peerID`.
    public func markVerified(peerID: String) { registry.markVerified(peerID: peerID) }

    /// The row for a peer that proved `peerID` on a connection, made if
    /// needed (nil at the cap), and the change to publish if it was made.
    public func adopt(peerID: String, name: String) -> (snapshot: PeerSnapshot, change: PeerChange?)? {
        registry.adopt(peerID: peerID, name: name, now: clock(), makeID: { UUID() })
    }
}
