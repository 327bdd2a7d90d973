import FoundationEssentials
import PeerCore

/// Durable delivery to paired peers: `send --queue` messages kept on disk
/// (``MessageQueueStore``) until the peer acknowledges them, handed to the
/// peer's session as far as its send queue takes them. ``QueueFlow`` decides
/// which go when; this component performs it.
@MainActor
public final class QueuedDelivery {
    private var store: MessageQueueStore
    private var flow = QueueFlow()
    /// Peers that answered `busy`, with their words, until they acknowledge again.
    private var busy: [String: String] = [:]
    private let logger: Logger

    /// Opens the queues under `stateDirectory`.
    public init(stateDirectory: String, logger: Logger) throws(SystemError) {
        store = try MessageQueueStore(stateDirectory: stateDirectory, logger: logger)
        self.logger = logger
    }

    /// Stores a message for `peerID` durably (fsync before it returns).
    public func enqueue(_ data: [UInt8], for peerID: String, name: String) -> Result<Void, ControlError> {
        do {
            guard try store.append(data, for: peerID) else {
                return .failure(ControlError(.queueFull, "the queue for '\(name)' holds \(store.bytes(peerID)) bytes; the limit is \(store.limitPerPeer)"))
            }
        } catch {
            return .failure(ControlError(.storageFailed, "cannot store the message: \(error)"))
        }
        return .success(())
    }

    /// Hands queued messages to `session` (connected, with `peer`), oldest
    /// first, as far as its send queue takes them; the rest wait for the
    /// next call.
    public func drain(to session: PeerSession, peer: UUID, name: String) {
        guard session.isConnected, let peerID = session.remotePeerID else { return }
        let pending = store.pending(peerID)
        var sent = 0
        for message in pending.dropFirst(flow.nextIndex(for: peer, pending: pending.count)) {
            guard let number = session.send(message) else { break }
            flow.sent(number, to: peer)
            sent += 1
        }
        if sent > 0 { logger.info("sent \(sent) queued message\(sent == 1 ? "" : "s") to '\(name)'") }
    }

    /// The peer's current session acknowledged its messages 1…`count`: the
    /// queued ones among them leave the disk.
    public func acknowledged(_ count: UInt64, peer: UUID, peerID: String) {
        let done = flow.acknowledged(through: count, by: peer)
        guard done > 0 else { return }
        busy[peerID] = nil
        do { try store.removeFirst(done, for: peerID) } catch {
            logger.error("cannot update the queue for \(peerID): \(error); those messages will be sent again")
        }
    }

    /// The peer's session ended: what it did not acknowledge goes again next time.
    public func sessionEnded(_ peer: UUID) {
        flow.sessionEnded(peer)
    }

    /// The peer closed the session as `busy` with `text`: shown by `queue`.
    public func peerBusy(_ peerID: String, _ text: String) {
        busy[peerID] = text
    }

    /// The peer was unpaired: its queue is dropped.
    public func discard(_ peerID: String, peer: UUID) {
        do { try store.discard(peerID) } catch { logger.warning("cannot drop the queue for \(peerID): \(error)") }
        flow.sessionEnded(peer)
        busy[peerID] = nil
    }

    /// Every queue with messages, for the `queue` method. `record` names a
    /// peer id's trust record (UUID and name), if it has one.
    /// A queue left by a peer that is no longer paired (a reset trust
    /// store) has no UUID to show: UUIDs are born only in the identity actor.
    public func list(record: (String) -> (uuid: UUID, name: String)?) -> [QueueInfo] {
        store.peerIDs.map { peerID in
            let known = record(peerID)
            return QueueInfo(peer: known?.uuid, name: known?.name ?? peerID, peerId: peerID,
                             messages: store.pending(peerID).count, bytes: store.bytes(peerID), busy: busy[peerID])
        }
    }
}
