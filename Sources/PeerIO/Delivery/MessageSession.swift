import PeerCore
import PeerProtocol

/// What queued delivery needs of a session (issue 21, point 8): whether it
/// carries data, whom it proved, its send queue's room, and a way to send
/// one message. A ``PeerSession`` is one; a test's fake is another, so
/// ``QueuedDelivery`` can be driven without sockets.
@MainActor
package protocol MessageSession: AnyObject {
    /// Whether the session is accepted and carries data.
    var isConnected: Bool { get }
    /// The peer's proven id, once the handshake is done.
    var remotePeerID: String? { get }
    /// The most application bytes the session queues.
    var sendLimit: Int { get }
    /// Bytes waiting to be written.
    var queuedBytes: Int { get }
    /// Sends one message of `app`: its number on the session (compare with
    /// acknowledgements), or nil, sending nothing, when the queue is full
    /// or the app cannot go now.
    /// `tag` is its place in the durable queue (sent as `queued` to a
    /// peer that speaks `once`).
    @discardableResult
    func send(_ data: [UInt8], app: AppName, tag: QueueTag?) -> UInt64?
    /// Why messages of `app` cannot go now, or nil when they can.
    func appRefusal(_ app: AppName) -> AppSendRefusal?
}

extension PeerSession: MessageSession {}
