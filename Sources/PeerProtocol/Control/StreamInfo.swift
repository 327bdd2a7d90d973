import FoundationEssentials

/// The answer to `pipe`, sent when the stream is over: how it ended and
/// the bytes that went each way (docs/control-protocol.md, "Streams").
public struct StreamInfo: Codable, Sendable, Equatable {
    /// The stream id (32 hexadecimal digits, the same on both hosts).
    public var id: String
    /// The stream's name.
    public var name: String
    /// The other peer's UUID.
    public var peer: UUID
    /// `closed` (both directions ended cleanly) or `reset`.
    public var state: String
    /// Bytes read from the input and sent.
    public var bytesSent: Int64
    /// Bytes received and written to the output.
    public var bytesReceived: Int64
    /// Why it was reset.
    public var reason: FlowEndReason?
    /// Words with `reason`, and which side reset it.
    public var detail: String?
    /// The app whose stream it is; absent for the default app's.
    public var app: String?

    /// Creates it.
    public init(id: String, name: String, peer: UUID, state: String, bytesSent: Int64, bytesReceived: Int64,
                reason: FlowEndReason? = nil, detail: String? = nil, app: String? = nil) {
        self.app = app
        self.id = id
        self.name = name
        self.peer = peer
        self.state = state
        self.bytesSent = bytesSent
        self.bytesReceived = bytesReceived
        self.reason = reason
        self.detail = detail
    }
}
