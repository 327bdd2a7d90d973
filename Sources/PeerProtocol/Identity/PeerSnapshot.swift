import FoundationEssentials

/// A peer as clients see it: one row, one UUID, for the daemon's lifetime.
public struct PeerSnapshot: Codable, Sendable, Equatable {
    /// The peer's UUID, born once in the identity actor.
    public var id: UUID
    /// The advertised peer id (key fingerprint); nil for a foreign advertiser.
    public var peerId: String?
    /// The display name (the service instance name).
    public var name: String
    /// Session state.
    public var state: ConnectionState
    /// Every address the peer is reachable at right now, sorted.
    public var endpoints: [Endpoint]
    /// The TXT pairs of the most recent resolution.
    public var info: [String: String]
    /// When the peer was last seen on the network.
    public var lastSeen: Date
    /// True when the peer's last endpoint has gone.
    public var lost: Bool
    /// True when the peer is in this host's trust store.
    public var paired: Bool = false
    /// The other end of the live session (`host:port`), when there is one.
    public var session: String?
    /// Where a session last reached the peer, learned from the session,
    /// not from mDNS: the endpoint dialled (`add`, invite) as `host:port`,
    /// or the host its connection came from. Kept after the session ends, so a
    /// peer met only through a session still shows an address.
    public var learnedAddress: String?
    /// The peer's release, as its last session's handshake said it
    /// ("0.1.0" for a peer that said nothing); absent until a session told us.
    public var release: String?
    /// The wire features the peer announced in that handshake, known here
    /// or not (docs/protocol.md §9); absent until a session told us.
    public var features: [String]?
    /// The apps the peer advertises (issue 23), from its TXT pairs
    /// (``AdvertisedApp/parse(_:)``); absent when it lists none.
    public var apps: [String: AdvertisedApp]?

    /// How this host knows the peer (since 0.4.0, issue 46): `mdns` (Avahi
    /// on a link), `dns:DOMAIN` (wide-area DNS-SD), or `added` (met only
    /// through a session: `add`, or a connection it made); a peer seen
    /// several ways lists each. Absent when none holds (a paired peer not
    /// seen since the start).
    public var sources: [String]?

    /// Creates a snapshot.
    public init(id: UUID, peerId: String?, name: String, state: ConnectionState, endpoints: [Endpoint],
                info: [String: String], lastSeen: Date, lost: Bool) {
        self.id = id
        self.peerId = peerId
        self.name = name
        self.state = state
        self.endpoints = endpoints
        self.info = info
        apps = AdvertisedApp.parse(info)
        self.lastSeen = lastSeen
        self.lost = lost
    }
}
