import Glibc
import PeerCore

/// Durable queues of messages for offline paired peers: one append-only file
/// per peer under `<state-dir>/queue/`, each message `fsync`ed before `send
/// --queue` answers, so a queued message survives a crash or restart of the
/// sender. Delivered messages are removed by rewriting the file atomically.
///
/// Guarantees (a full disk included): an append that fails leaves the file
/// as it was (it is cut back to its old length), so a message answered
/// `storageFailed` is never delivered; one answered `queued` is never lost;
/// and a bad record on disk costs only itself (``QueueFileCodec``).
public struct MessageQueueStore: Sendable {
    /// The most bytes queued per peer (64 MiB).
    public let limitPerPeer: Int
    /// The queue directory.
    public let directory: String
    private var queues: [String: [[UInt8]]] = [:]
    /// Peers whose file may not match memory (a failed append could not be
    /// cut back): the next change rewrites the file whole, atomically.
    private var dirty: Set<String> = []

    /// Opens (and creates) `<stateDirectory>/queue`, loading every queue. A
    /// record cut short by a crash is trimmed; the messages before it stay.
    public init(stateDirectory: String, limitPerPeer: Int = 64 << 20, logger: Logger) throws(SystemError) {
        self.limitPerPeer = limitPerPeer
        directory = stateDirectory + "/queue"
        try AtomicFile.makeDirectories(directory)
        guard let dir = opendir(directory) else { throw SystemError("opendir", errno: errno, context: directory) }
        var names: [String] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) }
            if name.hasSuffix(".queue") { names.append(name) }
        }
        closedir(dir)
        for name in names {
            let path = directory + "/" + name
            guard let bytes = try AtomicFile.read(path, limit: limitPerPeer + (1 << 20)) else { continue }
            let decoded = QueueFileCodec.decode(bytes)
            if decoded.needsRewrite {
                if decoded.skippedBytes > 0 || decoded.wholeBytes != bytes.count {
                    logger.warning("queue \(path): skipping \(bytes.count - decoded.wholeBytes + decoded.skippedBytes) bytes of damaged or cut-short records; \(decoded.messages.count) messages kept")
                }
                try AtomicFile.write(path, contents: QueueFileCodec.encodeFile(decoded.messages))
            }
            if !decoded.messages.isEmpty { queues[String(name.dropLast(".queue".count))] = decoded.messages }
        }
    }

    /// Messages waiting for `peerID`, oldest first.
    public func pending(_ peerID: String) -> [[UInt8]] { queues[peerID] ?? [] }

    /// Bytes waiting for `peerID`.
    public func bytes(_ peerID: String) -> Int { pending(peerID).reduce(0) { $0 + $1.count } }

    /// Every peer with messages waiting.
    public var peerIDs: [String] { queues.keys.sorted() }

    /// Appends durably. Returns false, storing nothing, when the peer's
    /// queue is full. On an error the file is as it was before the call.
    public mutating func append(_ message: [UInt8], for peerID: String) throws(SystemError) -> Bool {
        guard bytes(peerID) + message.count <= limitPerPeer else { return false }
        let path = file(peerID)
        if dirty.contains(peerID) {
            // Rewritten whole, atomically: either all of it or none.
            let all = pending(peerID) + [message]
            try AtomicFile.write(path, contents: QueueFileCodec.encodeFile(all))
            dirty.remove(peerID)
            queues[peerID] = all
            return true
        }
        let fd = try Syscall.call("open", path) { open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        let descriptor = FileDescriptor(rawValue: fd)
        defer { descriptor.close() }
        let size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else { throw SystemError("lseek", errno: errno, context: path) }
        let record = (size == 0 ? QueueFileCodec.header : []) + QueueFileCodec.encode(message)
        do {
            try descriptor.writeAll(record, context: path)
            try Syscall.call("fsync", path) { fsync(fd) }
        } catch {
            // Cut back to the old length, so no part of this message stays.
            if ftruncate(fd, size) != 0 || fsync(fd) != 0 { dirty.insert(peerID) }
            throw error
        }
        queues[peerID, default: []].append(message)
        return true
    }

    /// Removes the first `count` messages (they were handed to the session).
    public mutating func removeFirst(_ count: Int, for peerID: String) throws(SystemError) {
        guard count > 0, var queue = queues[peerID] else { return }
        queue.removeFirst(min(count, queue.count))
        let path = file(peerID)
        if queue.isEmpty {
            queues[peerID] = nil
            if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", errno: errno, context: path) }
        } else {
            try AtomicFile.write(path, contents: QueueFileCodec.encodeFile(queue))
            queues[peerID] = queue
            dirty.remove(peerID)
        }
    }

    /// Drops a peer's queue (it was unpaired).
    public mutating func discard(_ peerID: String) throws(SystemError) {
        try removeFirst(Int.max, for: peerID)
    }

    private func file(_ peerID: String) -> String {
        // Peer ids are hex; anything else never names a file.
        let safe = String(peerID.filter { $0.isHexDigit })
        return directory + "/" + safe + ".queue"
    }
}
