/// The result of `status`.
public struct DaemonStatus: Codable, Sendable, Equatable {
    /// peerd's version.
    public var version: String
    /// The process id.
    public var pid: Int32
    /// Seconds since start.
    public var uptime: Int
    /// This host's peer id (fingerprint of its identity key).
    public var peerId: String
    /// The name asked for (`--name`).
    public var requestedName: String
    /// The name in use, after any collision renames.
    public var name: String
    /// The DNS-SD service type.
    public var serviceType: String
    /// The session port being advertised.
    public var port: UInt16
    /// Interfaces browsed and published on; empty means all.
    public var interfaces: [String]
    /// The link to avahi-daemon.
    public var avahi: AvahiStatus
    /// A detail for `avahi` (such as the last Avahi error), if any.
    public var avahiMessage: String?
    /// The state of our own service.
    public var publication: PublicationState
    /// Rows in the peer list.
    public var peers: Int
    /// Rows whose peer is currently lost.
    public var lostPeers: Int
    /// The peer cap.
    public var maxPeers: Int
    /// New peers turned away at either cap.
    public var peersRejected: Int
    /// Rows made from mDNS alone whose key no handshake has proven.
    public var unverifiedPeers: Int = 0
    /// The cap on such rows.
    public var maxUnverifiedPeers: Int = 0
    /// The newest event sequence number.
    public var eventSeq: UInt64
    /// The control socket path.
    public var socket: String
    /// Live sessions (connected or being set up).
    public var sessions: Int = 0
    /// Control clients subscribed to events.
    public var subscribers: Int = 0
    /// Bytes of heap in use (glibc's `mallinfo2().uordblks`), and free in
    /// the heap but not given back (`fordblks`): what tells live data from
    /// fragments when private memory grows (issue 21, point 7). Absent from
    /// a daemon that does not report them.
    public var heapInUse: Int?
    /// See ``heapInUse``.
    public var heapFree: Int?
    /// The wire version (the `peerd/1` of the handshake's prologue); absent
    /// from a 0.1.0 daemon.
    public var wire: Int?
    /// The wire features this daemon speaks (docs/protocol.md §9); absent
    /// from a 0.1.0 daemon, which speaks none.
    public var features: [String]?
    /// The datagram path: its UDP port and counts (since 0.3.0).
    public var datagrams: DatagramStatus?
    /// The bulk lane's TCP port (since 0.4.0; docs/protocol.md §12):
    /// sessions offer it to their peers; absent when lanes are off or the
    /// port could not be opened (``laneError`` says which).
    public var lanePort: Int?
    /// Why this daemon offers no lane, when it offers none (since 0.4.0).
    public var laneError: String?
    /// Wide-area discovery through the site's DNS (since 0.4.0, issue 46);
    /// absent without `--wide-area`.
    public var wideArea: WideAreaStatus?

    /// Creates a status.
    public init(version: String, pid: Int32, uptime: Int, peerId: String, requestedName: String, name: String,
                serviceType: String, port: UInt16, interfaces: [String], avahi: AvahiStatus, avahiMessage: String?,
                publication: PublicationState, peers: Int, lostPeers: Int, maxPeers: Int, peersRejected: Int,
                eventSeq: UInt64, socket: String, sessions: Int = 0, subscribers: Int = 0,
                unverifiedPeers: Int = 0, maxUnverifiedPeers: Int = 0) {
        self.version = version
        self.pid = pid
        self.uptime = uptime
        self.peerId = peerId
        self.requestedName = requestedName
        self.name = name
        self.serviceType = serviceType
        self.port = port
        self.interfaces = interfaces
        self.avahi = avahi
        self.avahiMessage = avahiMessage
        self.publication = publication
        self.peers = peers
        self.lostPeers = lostPeers
        self.maxPeers = maxPeers
        self.peersRejected = peersRejected
        self.eventSeq = eventSeq
        self.socket = socket
        self.sessions = sessions
        self.subscribers = subscribers
        self.unverifiedPeers = unverifiedPeers
        self.maxUnverifiedPeers = maxUnverifiedPeers
    }
}
