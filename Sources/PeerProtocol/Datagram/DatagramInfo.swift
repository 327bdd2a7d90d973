/// A connected peer's datagram path (`peer`'s `datagrams`; docs/
/// control-protocol.md, "Datagrams").
public struct DatagramInfo: Codable, Sendable, Equatable {
    /// `unsupported` (the peer's release has no datagrams), `waiting`,
    /// `off`, `probing`, `up` or `blocked`.
    public var path: String
    /// The peer's UDP port, once it said it.
    public var port: Int?
    /// The last probe's round trip, in milliseconds.
    public var roundTripMs: Double?
    /// Datagrams sent to the peer, and received from it (authenticated).
    public var sent: UInt64
    /// See ``sent``.
    public var received: UInt64
    /// Dropped datagrams by reason (``DatagramDrop``'s raw values); only
    /// reasons that happened.
    public var dropped: [String: UInt64]

    /// Creates the info.
    public init(path: String, port: Int? = nil, roundTripMs: Double? = nil, sent: UInt64 = 0, received: UInt64 = 0, dropped: [String: UInt64] = [:]) {
        self.path = path
        self.port = port
        self.roundTripMs = roundTripMs
        self.sent = sent
        self.received = received
        self.dropped = dropped
    }
}
