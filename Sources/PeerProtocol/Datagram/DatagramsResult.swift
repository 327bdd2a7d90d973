/// The answer to `datagrams`, once its socket closed: what went through it.
public struct DatagramsResult: Codable, Sendable, Equatable {
    /// Records the client wrote that were sent to their peers.
    public var sent: UInt64
    /// Records the client wrote that were not sent: a peer not connected,
    /// without datagrams, a path blocked, too long, or the UDP socket full.
    public var refused: UInt64
    /// Datagrams written to the client.
    public var received: UInt64
    /// Datagrams for the client that its full socket did not take.
    public var lost: UInt64

    /// Creates the result.
    public init(sent: UInt64 = 0, refused: UInt64 = 0, received: UInt64 = 0, lost: UInt64 = 0) {
        self.sent = sent
        self.refused = refused
        self.received = received
        self.lost = lost
    }
}
