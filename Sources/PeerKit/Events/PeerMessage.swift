import PeerProtocol
import FoundationEssentials

/// One message a peer sent to this host.
public struct PeerMessage: Sendable, Equatable {
    /// The sender's row, or nil when it has none now.
    public var from: UUID?
    /// The sender's peer id (its key's fingerprint).
    public var peerID: String?
    /// The message.
    public var bytes: [UInt8]
    /// The app it was sent for; nil for the default app.
    public var app: String?
    /// When it reached this host, for one that waited in the inbox.
    public var received: Date?
}

extension PeerMessage {
    /// The message a `message` event carries, its data decoded from
    /// base64; nil when the data is not base64.
    init?(info: MessageInfo) {
        guard let bytes = Data(base64Encoded: info.data) else { return nil }
        self.init(from: info.from, peerID: info.peerId, bytes: Array(bytes), app: info.app, received: info.received)
    }
}
