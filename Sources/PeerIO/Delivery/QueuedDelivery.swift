import FoundationEssentials
import PeerCore
import PeerProtocol

/// Durable delivery to paired peers: `send --queue` messages kept on disk
/// (``MessageQueueStore``, on its own ``DiskWorker``) until the peer
/// acknowledges them, handed to the peer's session as far as its send
/// queue takes them. Each app has its own queue per peer (``QueueKey``),
/// so one app's backlog, or its peer's full inbox, never holds another's.
/// ``QueueFlow`` decides which go when; this component performs it, and
/// never touches the disk on the main actor.
@MainActor
package final class QueuedDelivery {
    /// The most messages read for one session at a time.
    nonisolated package static let batchCount = 4096
    /// The most bytes read at a time (but for a first message that is
    /// larger): sending a batch is one main-queue turn of encryption, kept
    /// short so control clients are answered in between.
    nonisolated package static let batchBytes = 1 << 20

    private let worker: DiskWorker<MessageQueueStore>
    private var flow = QueueFlow()
    /// Queues (store names) whose peer answered `busy`, with its words,
    /// until it acknowledges again.
    private var busy: [String: String] = [:]
    /// Per queue: the read from disk under way (a number never reused). One
    /// read at a time per queue keeps the flow's messages in flight what
    /// they were when it began, but for acknowledged ones, which leave the
    /// head of the queue and of the flow alike.
    private var reading: [QueueKey: UInt64] = [:]
    /// Per peer id, the apps that have had a queue since start-up (the
    /// default app's is always tried; at most the apps a host keeps):
    /// known here so draining never asks the disk which exist.
    private var appQueues: [String: Set<AppName>] = [:]
    private var reads: UInt64 = 0
    private let logger: Logger
    /// The most bytes per peer.
    package let limitPerPeer: Int

    /// Opens and indexes the queues under `stateDirectory` (at start-up,
    /// before anything is served).
    package init(stateDirectory: String, logger: Logger) throws(MessageQueueStoreError) {
        let store = try MessageQueueStore(stateDirectory: stateDirectory, logger: logger)
        limitPerPeer = store.limitPerPeer
        for name in store.peerIDs {
            guard let (peerID, app) = QueueKey.parse(storeName: name), !app.isDefault else { continue }
            appQueues[peerID, default: []].insert(app)
        }
        worker = DiskWorker(label: "peerd.queue", state: store)
        self.logger = logger
    }

    /// Stores a message of `app` for `peerID` durably; `done` hears of it
    /// once it is `fsync`ed (or refused, or failed).
    package func enqueue(_ data: [UInt8], for peerID: String, app: AppName = .none, name: String,
                        then done: @escaping @MainActor (Result<Void, ControlError>) -> Void) {
        let key = QueueKey.storeName(peerID: peerID, app: app)
        if !app.isDefault { appQueues[peerID, default: []].insert(app) }
        worker.run({ store -> Result<Void, ControlError> in
            do {
                guard try store.append(data, for: key) else {
                    return .failure(ControlError(.queueFull, "the queue for '\(name)'\(app.isDefault ? "" : " in app '\(app.text)'") holds \(store.bytes(key)) bytes; the limit is \(store.limitPerPeer)"))
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
    /// An app's queue goes only while the app is in `apps`, those
    /// connected with the peer, and the default app's unless
    /// `withDefault` is false (a session accepted for an app alone).
    package func drain(to session: any MessageSession, peer: UUID, name: String, apps: Set<AppName> = [], withDefault: Bool = true) {
        guard session.isConnected, let peerID = session.remotePeerID else { return }
        if withDefault { drain(QueueKey(peer: peer), peerID: peerID, to: session, name: name) }
        for app in (appQueues[peerID] ?? []).sorted() where apps.contains(app) && session.appRefusal(app) == nil {
            drain(QueueKey(peer: peer, app: app), peerID: peerID, to: session, name: name)
        }
    }

    /// Hands one queue's messages to `session` (see ``drain(to:peer:name:apps:)``).
    private func drain(_ queue: QueueKey, peerID: String, to session: any MessageSession, name: String) {
        guard reading[queue] == nil else { return }
        let room = session.sendLimit - session.queuedBytes
        guard room > 0 else { return }
        let skip = flow.inFlightCount(queue)
        let storeName = QueueKey.storeName(peerID: peerID, app: queue.app)
        reads += 1
        let key = reads
        reading[queue] = key
        worker.run({ store in
            Result<[MessageQueueStore.Queued], SystemError> { () throws(SystemError) in
                try store.read(storeName, skip: skip, maxBytes: room, batchBytes: Self.batchBytes, maxCount: Self.batchCount)
            }
        }, then: { [weak self, weak session] result in
            guard let self, self.reading[queue] == key else { return }
            self.reading[queue] = nil
            // Had the session ended, the read would have been forgotten
            // (``sessionEnded(_:)``), and the next session reads again.
            guard let session, session.isConnected else { return }
            switch result {
            case .failure(let error):
                self.logger.error("cannot read the queue for '\(name)': \(error); retrying at the next tick")
            case .success(let messages):
                var sent = 0
                for message in messages {
                    guard let number = session.send(message.data, app: queue.app, tag: message.tag) else { break }
                    self.flow.sent(number, of: queue)
                    sent += 1
                }
                if sent > 0 { self.logger.debug("sent \(sent) queued message\(sent == 1 ? "" : "s") to '\(name)'\(queue.app.isDefault ? "" : " for app '\(queue.app.text)'")") }
                // All taken: the session may have room for the next batch.
                if sent > 0, sent == messages.count { self.drain(queue, peerID: peerID, to: session, name: name) }
            }
        })
    }

    /// The peer's current session acknowledged its messages 1…`count`: the
    /// queued ones among them leave the disk.
    package func acknowledged(_ count: UInt64, peer: UUID, peerID: String) {
        for app in [AppName.none] + (appQueues[peerID] ?? []).sorted() {
            let done = flow.acknowledged(through: count, of: QueueKey(peer: peer, app: app))
            guard done > 0 else { continue }
            let storeName = QueueKey.storeName(peerID: peerID, app: app)
            // An app's busy lasts until its `appReady` (acks of what came
            // before the refusal arrive after it).
            if app.isDefault { busy[storeName] = nil }
            worker.run({ store in
                Result<Void, SystemError> { () throws(SystemError) in try store.removeFirst(done, for: storeName) }
            }, then: { [logger] result in
                if case .failure(let error) = result {
                    logger.error("cannot update the queue \(storeName): \(error); those messages will be sent again")
                }
            })
        }
    }

    /// The apps that have had a queue for `peerID` since start-up.
    package func apps(for peerID: String) -> [AppName] { (appQueues[peerID] ?? []).sorted() }

    /// The peer has room for `app` again: its queue is no longer busy.
    package func appReady(_ app: AppName, peerID: String) {
        busy[QueueKey.storeName(peerID: peerID, app: app)] = nil
    }

    /// The peer refused `app`'s messages from session message `first` on
    /// (`appBusy`), with `text`: the queued ones among them wait for its room.
    package func appBusy(_ app: AppName, peer: UUID, peerID: String, from first: UInt64, text: String) {
        let dropped = flow.refused(from: first, of: QueueKey(peer: peer, app: app))
        busy[QueueKey.storeName(peerID: peerID, app: app)] = text
        if dropped > 0 { logger.info("\(dropped) queued message\(dropped == 1 ? "" : "s") for app '\(app.text)' wait: \(text)") }
    }

    /// Waits for the disk work already handed to the queue's worker (at
    /// shutdown, so no append or acknowledgement is cut half-way).
    package func finishWriting() {
        worker.runAndWait { _ in }
    }

    /// The peer's session ended: what it did not acknowledge goes again next time.
    package func sessionEnded(_ peer: UUID) {
        flow.sessionEnded(peer)
        for key in reading.keys where key.peer == peer { reading[key] = nil }
    }

    /// The peer closed the session as `busy` with `text`: shown by `queue`
    /// (for the default app's queue).
    package func peerBusy(_ peerID: String, _ text: String) {
        busy[peerID] = text
    }

    /// The peer was unpaired: its queue is dropped.
    package func discard(_ peerID: String, peer: UUID) {
        let names = ([AppName.none] + (appQueues[peerID] ?? []).sorted()).map { QueueKey.storeName(peerID: peerID, app: $0) }
        worker.run({ store in
            Result<Void, SystemError> { () throws(SystemError) in
                for name in Set(names + store.peerIDs.filter { $0.hasPrefix(peerID + ".") }) { try store.discard(name) }
            }
        }, then: { [logger] result in
            if case .failure(let error) = result { logger.warning("cannot drop the queues for \(peerID): \(error)") }
        })
        sessionEnded(peer)
        for name in names { busy[name] = nil }
        appQueues[peerID] = nil
    }

    /// Every queue with messages, for the `queue` method, once the queue
    /// worker has counted them. `record` names a peer id's trust record
    /// (UUID and name), if it has one. A queue left by a peer that is no
    /// longer paired (a reset trust store) has no UUID to show: UUIDs are
    /// born only in the identity actor.
    package func list(record: @escaping @MainActor (String) -> (uuid: UUID, name: String)?,
                     then done: @escaping @MainActor ([QueueInfo]) -> Void) {
        worker.run({ store in
            store.peerIDs.map { (storeName: $0, messages: store.count($0), bytes: store.bytes($0)) }
        }, then: { [weak self] counts in
            done(counts.compactMap { item in
                guard let (peerID, app) = QueueKey.parse(storeName: item.storeName) else { return nil }
                let known = record(peerID)
                return QueueInfo(peer: known?.uuid, name: known?.name ?? peerID, peerId: peerID,
                                 messages: item.messages, bytes: item.bytes, busy: self?.busy[item.storeName],
                                 app: app.isDefault ? nil : app.text)
            })
        })
    }
}
