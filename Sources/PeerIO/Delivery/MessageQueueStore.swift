import Glibc
import PeerCore

/// Durable queues of messages for offline paired peers: one append-only file
/// per peer under `<state-dir>/queue/`, each message `fsync`ed before `send
/// --queue` answers, so a queued message survives a crash or restart of the
/// sender. A delivered message is marked in its record (one byte written,
/// one `fdatasync`), so an acknowledgement never rewrites the queue; the
/// file is rewritten, atomically, only when delivered records outweigh the
/// waiting ones by more than 1 MiB.
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
    /// Per peer: where each waiting message's record starts in its file.
    private var offsets: [String: [Int]] = [:]
    /// Per peer: bytes of delivered records still in its file.
    private var deliveredBytes: [String: Int] = [:]
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
            let peerID = String(name.dropLast(".queue".count))
            if decoded.needsRewrite {
                if decoded.skippedBytes > 0 || decoded.wholeBytes != bytes.count {
                    logger.warning("queue \(path): skipping \(bytes.count - decoded.wholeBytes + decoded.skippedBytes) bytes of damaged or cut-short records; \(decoded.messages.count) messages kept")
                }
                try AtomicFile.write(path, contents: QueueFileCodec.encodeFile(decoded.messages))
                offsets[peerID] = Self.offsets(of: decoded.messages)
            } else {
                offsets[peerID] = decoded.offsets
                deliveredBytes[peerID] = decoded.deliveredBytes
            }
            if !decoded.messages.isEmpty { queues[peerID] = decoded.messages }
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
            offsets[peerID] = Self.offsets(of: all)
            deliveredBytes[peerID] = nil
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
        offsets[peerID, default: []].append(Int(size) + (size == 0 ? QueueFileCodec.header.count : 0))
        return true
    }

    /// Removes the first `count` messages (the peer acknowledged them):
    /// their records are marked delivered in place, and the file is
    /// rewritten only when it is mostly delivered records (or removed when
    /// nothing waits).
    public mutating func removeFirst(_ count: Int, for peerID: String) throws(SystemError) {
        guard count > 0, var queue = queues[peerID] else { return }
        let done = min(count, queue.count)
        let path = file(peerID)
        if done == queue.count {
            queues[peerID] = nil
            offsets[peerID] = nil
            deliveredBytes[peerID] = nil
            dirty.remove(peerID)
            if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", errno: errno, context: path) }
            return
        }
        let gone = Array(queue.prefix(done))
        queue.removeFirst(done)
        var starts = offsets[peerID] ?? []
        if dirty.contains(peerID) || starts.count != gone.count + queue.count {
            // The file may not match: rewritten whole, atomically.
            try rewrite(queue, for: peerID)
            return
        }
        let fd = try Syscall.call("open", path) { open(path, O_WRONLY | O_CLOEXEC) }
        let descriptor = FileDescriptor(rawValue: fd)
        defer { descriptor.close() }
        for start in starts.prefix(done) {
            var state = QueueFileCodec.delivered
            try Syscall.call("pwrite", path) { pwrite(fd, &state, 1, off_t(start + QueueFileCodec.stateOffset)) }
        }
        try Syscall.call("fdatasync", path) { fdatasync(fd) }
        starts.removeFirst(done)
        queues[peerID] = queue
        offsets[peerID] = starts
        let delivered = (deliveredBytes[peerID] ?? 0) + gone.reduce(0) { $0 + QueueFileCodec.recordOverhead + $1.count }
        deliveredBytes[peerID] = delivered
        let waiting = queue.reduce(0) { $0 + QueueFileCodec.recordOverhead + $1.count }
        if delivered > waiting + (1 << 20) { try rewrite(queue, for: peerID) }
    }

    private mutating func rewrite(_ queue: [[UInt8]], for peerID: String) throws(SystemError) {
        try AtomicFile.write(file(peerID), contents: QueueFileCodec.encodeFile(queue))
        queues[peerID] = queue
        offsets[peerID] = Self.offsets(of: queue)
        deliveredBytes[peerID] = nil
        dirty.remove(peerID)
    }

    /// Where each record starts in a file written whole from `messages`.
    private static func offsets(of messages: [[UInt8]]) -> [Int] {
        var start = QueueFileCodec.header.count
        return messages.map { message in
            defer { start += QueueFileCodec.recordOverhead + message.count }
            return start
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
