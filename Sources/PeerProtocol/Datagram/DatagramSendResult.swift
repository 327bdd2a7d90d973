/// The result of `datagram`: sent now, or dropped now (never queued).
public struct DatagramSendResult: Codable, Sendable, Equatable {
    /// Whether the kernel took it.
    public var sent: Bool
    /// Why not, when not (``DatagramDrop``'s raw value: `wouldBlock`, `sendFailed`, `noPath`).
    public var dropped: String?
    /// The data bytes.
    public var bytes: Int
    /// How it went: `udp`, or `session` (carried in the session, asked
    /// for with `fallback` while the path was not up).
    public var via: String?

    /// Creates the result.
    public init(sent: Bool, dropped: String? = nil, bytes: Int, via: String? = nil) {
        self.sent = sent
        self.dropped = dropped
        self.bytes = bytes
        self.via = via
    }
}
