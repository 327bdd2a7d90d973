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
/// Only the index is in memory (where each waiting record is, and how
/// long): messages are read from the file when they are sent. The store
/// lives on the queue's ``DiskWorker``, never on the main actor.
///
/// Guarantees (a full disk included): an append that fails leaves the file
/// as it was (it is cut back to its old length), so a message answered
/// `storageFailed` is never delivered; one answered `queued` is never lost;
/// and a bad record on disk costs only itself (``QueueFileCodec``).
public struct MessageQueueStore: Sendable {
    /// Where one waiting message's record is in its file.
    public struct Entry: Sendable, Equatable {
        /// The record's first byte.
        public var offset: Int
        /// The message's length.
        public var length: Int
    }

    /// The most bytes queued per peer (64 MiB).
    public let limitPerPeer: Int
    /// The queue directory.
    public let directory: String
    /// Per peer: its waiting messages, oldest first.
    private var index: [String: [Entry]] = [:]
    /// Per peer: bytes of delivered records still in its file.
    private var deliveredBytes: [String: Int] = [:]
    /// Peers whose file may have bytes past its last record (a failed
    /// append could not be cut back): the next change rewrites it whole.
    private var dirty: Set<String> = []

    /// The file of each layout (docs/architecture.md, "State across
    /// releases"): a layout is never rewritten in place under the name an
    /// older release reads, so a downgrade never misreads one.
    /// `<peer id>.queue` is 0.1.0's (``QueueFileCodec`` version 1, read
    /// only); `<peer id>.queue2` is this release's (version 2).
    public static let oldSuffix = ".queue"
    public static let suffix = ".queue2"
    /// An app's queue for a peer (issue 23): `<peer id>.<app>.appqueue`,
    /// the layout of `.queue2` under a name no earlier release reads, so a
    /// downgrade leaves it alone rather than take it for the default app's.
    /// Its key here is `<peer id>.<app>` (``QueueKey/storeName(peerID:)``).
    public static let appSuffix = ".appqueue"

    /// Opens (and creates) `<stateDirectory>/queue`, indexing every queue.
    /// A record cut short by a crash is trimmed; the messages before it
    /// stay. A 0.1.0 queue is carried into this release's file (after
    /// what that file holds, if a downgrade left both), then removed. A
    /// queue file of a layout this release cannot read (a newer one, or a
    /// damaged header) is refused, and nothing is changed.
    public init(stateDirectory: String, limitPerPeer: Int = 64 << 20, logger: Logger) throws(MessageQueueStoreError) {
        self.limitPerPeer = limitPerPeer
        directory = stateDirectory + "/queue"
        let limit = limitPerPeer + (1 << 20)
        do {
            try AtomicFile.makeDirectories(directory)
            var peers: Set<String> = []
            for name in try Self.names(in: directory) {
                if name.hasSuffix(Self.suffix) { peers.insert(String(name.dropLast(Self.suffix.count))) }
                if name.hasSuffix(Self.oldSuffix) { peers.insert(String(name.dropLast(Self.oldSuffix.count))) }
                if name.hasSuffix(Self.appSuffix) { peers.insert(String(name.dropLast(Self.appSuffix.count))) }
            }
            // Every current file is checked before anything is written.
            var current: [String: [UInt8]] = [:]
            for peerID in peers.sorted() {
                let path = file(peerID)
                guard let bytes = try AtomicFile.read(path, limit: limit) else { continue }
                if let found = Self.unreadableHeader(bytes) { throw MessageQueueStoreError.unreadable(path: path, found: found) }
                current[peerID] = bytes
            }
            for peerID in peers.sorted() {
                let path = file(peerID)
                var decoded = QueueFileCodec.decode(current[peerID] ?? QueueFileCodec.header)
                let oldPath = directory + "/" + peerID + Self.oldSuffix
                let old = try AtomicFile.read(oldPath, limit: limit)
                if let old {
                    let carried = QueueFileCodec.decode(old)
                    logger.notice("queue \(oldPath): \(carried.messages.count) messages of an earlier release carried into \(path)")
                    decoded.messages += carried.messages
                    decoded.needsRewrite = true
                }
                if decoded.needsRewrite {
                    if decoded.skippedBytes > 0 || (old == nil && decoded.wholeBytes != (current[peerID]?.count ?? 0)) {
                        logger.warning("queue \(path): skipping damaged or cut-short records; \(decoded.messages.count) messages kept")
                    }
                    try AtomicFile.write(path, contents: QueueFileCodec.encodeFile(decoded.messages))
                    // Only once the messages are in this release's file.
                    if old != nil { try Syscall.call("unlink", oldPath) { unlink(oldPath) } }
                    index[peerID] = Self.entries(of: decoded.messages.map(\.count))
                } else {
                    index[peerID] = zip(decoded.offsets, decoded.messages).map { Entry(offset: $0, length: $1.count) }
                    deliveredBytes[peerID] = decoded.deliveredBytes
                }
                if decoded.messages.isEmpty { index[peerID] = nil }
            }
        } catch let error as MessageQueueStoreError {
            throw error
        } catch let error as SystemError {
            throw .system(error)
        } catch {
            throw .system(SystemError("open", errno: EIO, context: "\(directory): \(error)"))
        }
    }

    /// What is wrong with a version 2 file's header, if anything: a newer
    /// layout, or bytes that are no header at all. An empty file, or one cut
    /// short inside the header, is an empty queue.
    static func unreadableHeader(_ bytes: [UInt8]) -> String? {
        guard !bytes.isEmpty, !bytes.starts(with: QueueFileCodec.header), !QueueFileCodec.header.starts(with: bytes) else { return nil }
        let prefix = Array(QueueFileCodec.header.prefix(6))   // "PEERDQ"
        let head = String(decoding: bytes.prefix(8).map { (0x20...0x7e).contains($0) ? $0 : 0x3f }, as: UTF8.self)
        if bytes.starts(with: prefix) { return "a queue file of another layout (its header says \(head))" }
        return "a damaged header (\(head))"
    }

    private static func names(in directory: String) throws(SystemError) -> [String] {
        guard let dir = opendir(directory) else { throw SystemError("opendir", errno: errno, context: directory) }
        defer { closedir(dir) }
        var names: [String] = []
        while let entry = readdir(dir) {
            names.append(withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix(while: { $0 != 0 }), as: UTF8.self) })
        }
        return names
    }

    /// How many messages wait for `peerID`.
    public func count(_ peerID: String) -> Int { index[peerID]?.count ?? 0 }

    /// Bytes waiting for `peerID`.
    public func bytes(_ peerID: String) -> Int { index[peerID]?.reduce(0) { $0 + $1.length } ?? 0 }

    /// Every peer with messages waiting.
    public var peerIDs: [String] { index.keys.sorted() }

    /// Reads waiting messages for `peerID` from the file, oldest first,
    /// skipping the first `skip`: as many as fit in `maxBytes` (none if the
    /// first does not), and at most `maxCount`. Past the first message, no
    /// more than `batchBytes` in all: a batch is the work of one main-queue
    /// turn when it is sent.
    public func read(_ peerID: String, skip: Int, maxBytes: Int, batchBytes: Int = .max, maxCount: Int = 4096) throws(SystemError) -> [[UInt8]] {
        guard let entries = index[peerID], skip < entries.count else { return [] }
        var chosen: [Entry] = []
        var total = 0
        for entry in entries[skip...].prefix(maxCount) {
            guard total + entry.length <= maxBytes, chosen.isEmpty || total + entry.length <= batchBytes else { break }
            total += entry.length
            chosen.append(entry)
        }
        guard !chosen.isEmpty else { return [] }
        let path = file(peerID)
        let fd = try Syscall.call("open", path) { open(path, O_RDONLY | O_CLOEXEC) }
        let descriptor = FileDescriptor(rawValue: fd)
        defer { descriptor.close() }
        var messages: [[UInt8]] = []
        messages.reserveCapacity(chosen.count)
        for entry in chosen {
            var message = [UInt8](repeating: 0, count: entry.length)
            var done = 0
            while done < entry.length {
                let got = message.withUnsafeMutableBytes { raw in
                    pread(fd, raw.baseAddress! + done, entry.length - done, off_t(entry.offset + QueueFileCodec.recordOverhead + done))
                }
                guard got > 0 else { throw SystemError("pread", errno: got == 0 ? EIO : errno, context: path) }
                done += got
            }
            messages.append(message)
        }
        return messages
    }

    /// Every message waiting for `peerID`, read from the file (for tests
    /// and tools; the daemon reads in bounded batches with
    /// ``read(_:skip:maxBytes:batchBytes:maxCount:)``).
    public func pending(_ peerID: String) throws(SystemError) -> [[UInt8]] {
        try read(peerID, skip: 0, maxBytes: .max, maxCount: .max)
    }

    /// Appends durably. Returns false, storing nothing, when the peer's
    /// queue is full. On an error the file is as it was before the call.
    public mutating func append(_ message: [UInt8], for peerID: String) throws(SystemError) -> Bool {
        guard bytes(peerID) + message.count <= limitPerPeer else { return false }
        if dirty.contains(peerID) { try rewrite(peerID) }
        let path = file(peerID)
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
        let start = Int(size) + (size == 0 ? QueueFileCodec.header.count : 0)
        index[peerID, default: []].append(Entry(offset: start, length: message.count))
        return true
    }

    /// Removes the first `count` messages (the peer acknowledged them):
    /// their records are marked delivered in place, and the file is
    /// rewritten only when it is mostly delivered records (or removed when
    /// nothing waits).
    public mutating func removeFirst(_ count: Int, for peerID: String) throws(SystemError) {
        guard count > 0, var entries = index[peerID] else { return }
        let done = min(count, entries.count)
        let path = file(peerID)
        if done == entries.count {
            index[peerID] = nil
            deliveredBytes[peerID] = nil
            dirty.remove(peerID)
            if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", errno: errno, context: path) }
            return
        }
        let fd = try Syscall.call("open", path) { open(path, O_WRONLY | O_CLOEXEC) }
        let descriptor = FileDescriptor(rawValue: fd)
        defer { descriptor.close() }
        for entry in entries.prefix(done) {
            var state = QueueFileCodec.delivered
            try Syscall.call("pwrite", path) { pwrite(fd, &state, 1, off_t(entry.offset + QueueFileCodec.stateOffset)) }
        }
        try Syscall.call("fdatasync", path) { fdatasync(fd) }
        let gone = entries.prefix(done).reduce(0) { $0 + QueueFileCodec.recordOverhead + $1.length }
        entries.removeFirst(done)
        index[peerID] = entries
        let delivered = (deliveredBytes[peerID] ?? 0) + gone
        deliveredBytes[peerID] = delivered
        let waiting = entries.reduce(0) { $0 + QueueFileCodec.recordOverhead + $1.length }
        if dirty.contains(peerID) || delivered > waiting + (1 << 20) { try rewrite(peerID) }
    }

    /// Rewrites the peer's file whole, atomically, from its waiting
    /// messages (read back from the file first; at most ``limitPerPeer``).
    private mutating func rewrite(_ peerID: String) throws(SystemError) {
        let messages = try pending(peerID)
        try AtomicFile.write(file(peerID), contents: QueueFileCodec.encodeFile(messages))
        index[peerID] = Self.entries(of: messages.map(\.count))
        deliveredBytes[peerID] = nil
        dirty.remove(peerID)
    }

    /// Where each record is in a file written whole from messages of these lengths.
    private static func entries(of lengths: [Int]) -> [Entry] {
        var start = QueueFileCodec.header.count
        return lengths.map { length in
            defer { start += QueueFileCodec.recordOverhead + length }
            return Entry(offset: start, length: length)
        }
    }

    /// Drops a peer's queue (it was unpaired).
    public mutating func discard(_ peerID: String) throws(SystemError) {
        try removeFirst(Int.max, for: peerID)
    }

    /// The file of a queue key: `<peer id>.queue2` for the default app,
    /// `<peer id>.<app>.appqueue` for an app's.
    private func file(_ key: String) -> String {
        // Peer ids are hex and app names [a-z0-9-]; anything else never names a file.
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        let peer = String((parts.first ?? "").filter { $0.isHexDigit })
        guard parts.count == 2 else { return directory + "/" + peer + Self.suffix }
        let app = String(parts[1].filter { $0.isLowercase || $0.isNumber || $0 == "-" })
        return directory + "/" + peer + "." + app + Self.appSuffix
    }
}
