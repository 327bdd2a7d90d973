/// The daemon's datagram path (`status`'s `datagrams`).
public struct DatagramStatus: Codable, Sendable, Equatable {
    /// The UDP port; nil when no socket could be opened (the message is in `error`).
    public var port: Int?
    /// Why there is no socket.
    public var error: String?
    /// Datagrams sent and received (authenticated), over every peer since start.
    public var sent: UInt64
    /// See ``sent``.
    public var received: UInt64
    /// Dropped datagrams by reason (``DatagramDrop``), over every peer.
    public var dropped: [String: UInt64]
    /// Datagrams dropped before any crypto: too short or long, an unknown
    /// kind, or an index that names no session (junk, or a session gone).
    public var junk: UInt64
    /// Datagrams the kernel dropped at the UDP socket because its buffer
    /// was full (the daemon fell behind; `SO_RXQ_OVFL`).
    public var kernelDropped: UInt64
    /// Client sockets taking datagrams now (`datagrams`).
    public var receivers: Int

    /// Creates the status.
    public init(port: Int?, error: String? = nil, sent: UInt64, received: UInt64, dropped: [String: UInt64], junk: UInt64, kernelDropped: UInt64 = 0,
                receivers: Int) {
        self.kernelDropped = kernelDropped
        self.port = port
        self.error = error
        self.sent = sent
        self.received = received
        self.dropped = dropped
        self.junk = junk
        self.receivers = receivers
    }
}
