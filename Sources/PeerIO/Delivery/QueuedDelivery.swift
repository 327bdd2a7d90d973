import FoundationEssentials
import PeerCore

/// Durable delivery to paired peers: `send --queue` messages kept on disk
/// (``MessageQueueStore``, on its own ``DiskWorker``) until the peer
/// acknowledges them, handed to the peer's session as far as its send
/// queue takes them. ``QueueFlow`` decides which go when; this component
/// performs it, and never touches the disk on the main actor.
@MainActor
public final class QueuedDelivery {
    /// The most messages read for one session at a time.
    nonisolated public static let batchCount = 4096
    /// The most bytes read at a time (but for a first message that is
    /// larger): sending a batch is one main-queue turn of encryption, kept
    /// short so control clients are answered in between.
    nonisolated public static let batchBytes = 1 << 20

    private let worker: DiskWorker<MessageQueueStore>
    private var flow = QueueFlow()
    /// Peers that answered `busy`, with their words, until they acknowledge again.
    private var busy: [String: String] = [:]
    /// Per peer: the read from disk under way (a number never reused). One
    /// read at a time per peer keeps the flow's messages in flight what
    /// they were when it began, but for acknowledged ones, which leave the
    /// head of the queue and of the flow alike.
    private var reading: [UUID: UInt64] = [:]
    private var reads: UInt64 = 0
    private let logger: Logger
    /// The most bytes per peer.
    public let limitPerPeer: Int

    /// Opens and indexes the queues under `stateDirectory` (at start-up,
    /// before anything is served).
    public init(stateDirectory: String, logger: Logger) throws(MessageQueueStoreError) {
        let store = try MessageQueueStore(stateDirectory: stateDirectory, logger: logger)
        limitPerPeer = store.limitPerPeer
        worker = DiskWorker(label: "peerd.queue", state: store)
        self.logger = logger
    }

    /// Stores a message for `peerID` durably; `done` hears of it once it
    /// is `fsync`ed (or refused, or failed).
    public func enqueue(_ data: [UInt8], for peerID: String, name: String,
                        then done: @escaping @MainActor (Result<Void, ControlError>) -> Void) {
        worker.run({ store -> Result<Void, ControlError> in
            do {
                guard try store.append(data, for: peerID) else {
                    return .failure(ControlError(.queueFull, "the queue for '\(name)' holds \(store.bytes(peerID)) bytes; the limit is \(store.limitPerPeer)"))
                }
                return .success(())
            } catch {
                return .failure(ControlError(.storageFailed, "cannot store the message: \(error)"))
            }
        }, then: done)
    }

    /// Hands queued messages to `session` (connected, with `peer`), oldest
    /// first, as far as its send queue takes them; the rest wait for the
    /// next call. The messages are read from disk first, off the main
    /// actor, in batches of about ``batchBytes``, as long as the session
    /// has room.
    public func drain(to session: any MessageSession, peer: UUID, name: String) {
        guard session.isConnected, let peerID = session.remotePeerID, reading[peer] == nil else { return }
        let room = session.sendLimit - session.queuedBytes
        guard room > 0 else { return }
        let skip = flow.inFlightCount(peer)
        reads += 1
        let key = reads
        reading[peer] = key
        worker.run({ store in
            Result<[[UInt8]], SystemError> { () throws(SystemError) in
                try store.read(peerID, skip: skip, maxBytes: room, batchBytes: Self.batchBytes, maxCount: Self.batchCount)
            }
        }, then: { [weak self, weak session] result in
            guard let self, self.reading[peer] == key else { return }
            self.reading[peer] = nil
            // Had the session ended, the read would have been forgotten
            // (``sessionEnded(_:)``), and the next session reads again.
            guard let session, session.isConnected else { return }
            switch result {
            case .failure(let error):
                self.logger.error("cannot read the queue for '\(name)': \(error); retrying at the next tick")
            case .success(let messages):
                var sent = 0
                for message in messages {
                    guard let number = session.send(message) else { break }
                    self.flow.sent(number, to: peer)
                    sent += 1
                }
                if sent > 0 { self.logger.debug("sent \(sent) queued message\(sent == 1 ? "" : "s") to '\(name)'") }
                // All taken: the session may have room for the next batch.
                if sent > 0, sent == messages.count { self.drain(to: session, peer: peer, name: name) }
            }
        })
    }

    /// The peer's current session acknowledged its messages 1…`count`: the
    /// queued ones among them leave the disk.
    public func acknowledged(_ count: UInt64, peer: UUID, peerID: String) {
        let done = flow.acknowledged(through: count, by: peer)
        guard done > 0 else { return }
        busy[peerID] = nil
        worker.run({ store in
            Result<Void, SystemError> { () throws(SystemError) in try store.removeFirst(done, for: peerID) }
        }, then: { [logger] result in
            if case .failure(let error) = result {
                logger.error("cannot update the queue for \(peerID): \(error); those messages will be sent again")
            }
        })
    }

    /// Waits for the disk work already handed to the queue's worker (at
    /// shutdown, so no append or acknowledgement is cut half-way).
    public func finishWriting() {
        worker.runAndWait { _ in }
    }

    /// The peer's session ended: what it did not acknowledge goes again next time.
    public func sessionEnded(_ peer: UUID) {
        flow.sessionEnded(peer)
        reading[peer] = nil
    }

    /// The peer closed the session as `busy` with `text`: shown by `queue`.
    public func peerBusy(_ peerID: String, _ text: String) {
        busy[peerID] = text
    }

    /// The peer was unpaired: its queue is dropped.
    public func discard(_ peerID: String, peer: UUID) {
        worker.run({ store in
            Result<Void, SystemError> { () throws(SystemError) in try store.discard(peerID) }
        }, then: { [logger] result in
            if case .failure(let error) = result { logger.warning("cannot drop the queue for \(peerID): \(error)") }
        })
        sessionEnded(peer)
        busy[peerID] = nil
    }

    /// Every queue with messages, for the `queue` method, once the queue
    /// worker has counted them. `record` names a peer id's trust record
    /// (UUID and name), if it has one. A queue left by a peer that is no
    /// longer paired (a reset trust store) has no UUID to show: UUIDs are
    /// born only in the identity actor.
    public func list(record: @escaping @MainActor (String) -> (uuid: UUID, name: String)?,
                     then done: @escaping @MainActor ([QueueInfo]) -> Void) {
        worker.run({ store in
            store.peerIDs.map { (peerID: $0, messages: store.count($0), bytes: store.bytes($0)) }
        }, then: { [weak self] counts in
            done(counts.map { item in
                let known = record(item.peerID)
                return QueueInfo(peer: known?.uuid, name: known?.name ?? item.peerID, peerId: item.peerID,
                                 messages: item.messages, bytes: item.bytes, busy: self?.busy[item.peerID])
            })
        })
    }
}
