import FoundationEssentials
import PeerCore
import PeerProtocol

/// What the transfer desk needs of a session (issue 21, point 8): who is
/// at the other end, room for bulk frames, and a way to send them. A
/// ``PeerSession`` is one; a test's fake session is another, so the desk
/// can be driven message by message without sockets, root or two hosts
/// (as NIO tests a handler with `EmbeddedChannel`).
@MainActor
package protocol BulkSession: AnyObject {
    /// The peer's row id, once the session knows it.
    var peerUUID: UUID? { get }
    /// The peer's proven id, once the handshake is done.
    var remotePeerID: String? { get }
    /// Whether the session is accepted and carries data.
    var isConnected: Bool { get }
    /// What the peer said of itself in the handshake: which of files and
    /// streams it takes (docs/protocol.md §9).
    var remoteHello: PeerHello? { get }
    /// Bytes of bulk frames that may be queued now (0 when none may).
    var bulkRoom: Int { get }
    /// Whether its file and stream bytes go on a bulk lane (issue 44).
    var bulkOnLane: Bool { get }
    /// The hash of its transfers' blocks and files (docs/protocol.md §8):
    /// SHA-256 when both hellos name `sha256-blocks`.
    var blockHash: BlockHashKind { get }
    /// Sends one transfer or stream message (protocol.md §8).
    func sendBulk(_ message: BulkMessage)
    /// Sends one, on the session's own connection when `lane` is false
    /// (an app's stream: its opening went there, in `appFlow`, so all of
    /// it stays there; protocol.md §12).
    func sendBulk(_ message: BulkMessage, lane: Bool)
    /// Sends the opening of a flow of `app` (an `offer` part or a
    /// `streamOpen`): plain for the default app, in `appFlow` for another
    /// (protocol.md §10). False, sending nothing, when the session cannot
    /// carry that app's flows (the peer has no apps, or the session was
    /// accepted for an app alone and `app` is the default).
    @discardableResult
    func sendBulk(_ message: BulkMessage, app: AppName) -> Bool
    /// Whether the default app's traffic may use it (it was not accepted
    /// for an app alone).
    var carriesDefault: Bool { get }
    /// The app it was accepted for alone, if it was (for errors).
    var admission: AppName? { get }
    /// Builds one bulk frame in place: `write` fills up to `capacity`
    /// plaintext bytes and says how many (nil: send nothing). Returns the
    /// bytes sent, or nil when the session cannot carry it.
    /// `lane` false keeps it on the session's own connection (as
    /// ``sendBulk(_:lane:)``).
    @discardableResult
    func transmitBulk(capacity: Int, lane: Bool, write: (UnsafeMutableRawBufferPointer) -> Int?) -> Int?
    /// Builds one bulk frame off the main actor, after every frame queued
    /// before it: `fill` writes up to `capacity` plaintext bytes and says
    /// how many; nil sends nothing and runs `dropped` on the main actor. A
    /// `capacity` of 0 is work alone. `cost` bytes count against
    /// ``bulkRoom`` until it has run. False when the session cannot carry it
    /// (``PeerSession/transmitBulkLater(capacity:cost:fill:dropped:)``).
    @discardableResult
    func transmitBulkLater(capacity: Int, cost: Int, fill: @escaping @Sendable (UnsafeMutableRawBufferPointer) -> Int?,
                           dropped: @escaping @MainActor @Sendable () -> Void) -> Bool
    /// Sends a transfer or stream message made off the main actor, after the
    /// work queued before it; nil from `make` sends nothing.
    func sendBulkLater(_ make: @escaping @Sendable () -> BulkMessage?)
    /// A desk has bulk frames to send (an answer or credit came): the
    /// session's owner hands out turns now, as when room comes back.
    func wantsBulkTurn()
}

extension PeerSession: BulkSession {
    /// SHA-256 when this side's hello and the peer's both name `sha256-blocks`.
    package var blockHash: BlockHashKind { .on(ours: localHello ?? .silent, theirs: remoteHello) }

    /// Asks the delegate for turns, exactly as ``transportHasRoom()`` does.
    package func wantsBulkTurn() {
        if isConnected { delegate?.sessionCanSendBulk(self) }
    }
}

/// Where a desk finds the session with a peer: the daemon's one
/// ``SessionTable``, or a test's table of fake sessions.
@MainActor
package protocol BulkSessions: AnyObject {
    /// The session counting for `peer`, if one is up.
    func bulkSession(for peer: UUID) -> (any BulkSession)?
}

extension SessionTable: BulkSessions {
    /// Any session counts, an app's alone too: which app may open a flow
    /// on it is checked where flows open (``BulkSession/sendBulk(_:app:)``).
    package func bulkSession(for peer: UUID) -> (any BulkSession)? { self[peer] }
}
