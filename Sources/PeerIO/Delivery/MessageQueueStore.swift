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
/// Each message carries its ``QueueTag`` (the file's epoch and its seq), so
/// the receiver keeps it once however often it is sent (issue 42, point 6).
///
/// Only the index is in memory (where each waiting record is, and how
/// long): messages are read from the file when they are sent. The store
/// lives on the queue's ``DiskWorker``, never on the main actor.
///
/// Guarantees (a full disk included): an append that fails leaves the file
/// as it was (it is cut back to its old length), so a message answered
/// `storageFailed` is never delivered; one answered `queued` is never lost;
/// and a bad record on disk costs only itself (``QueueFileCodec``).
package struct MessageQueueStore: Sendable {
    /// Where one waiting message's record is in its file.
    package struct Entry: Sendable, Equatable {
        /// The record's first byte.
        package var offset: Int
        /// The message's length.
        package var length: Int
        /// The message's seq in its file.
        package var seq: UInt64
    }

    /// One waiting message read back, with its tag.
    package struct Queued: Sendable, Equatable {
        /// Its place in the queue: the file's epoch and its seq.
        package var tag: QueueTag
        /// The message.
        package var data: [UInt8]
    }

    /// The most bytes queued per peer (64 MiB).
    package let limitPerPeer: Int
    /// The queue directory.
    package let directory: String
    /// Per queue: its waiting messages, oldest first.
    private var index: [String: [Entry]] = [:]
    /// Per queue whose file exists: its epoch and the seq its next message
    /// takes. A queue whose file is removed (nothing waits) starts a new
    /// epoch with its next message.
    private var files: [String: (epoch: UInt64, nextSeq: UInt64)] = [:]
    /// Per queue: bytes of delivered records still in its file.
    private var deliveredBytes: [String: Int] = [:]
    /// Queues whose file may have bytes past its last record (a failed
    /// append could not be cut back): the next change rewrites it whole.
    private var dirty: Set<String> = []
    /// Where a new file's epoch comes from (random, never 0).
    private let newEpoch: @Sendable () -> UInt64

    /// The file of each layout (docs/architecture.md, "State across
    /// releases"): a layout is never rewritten in place under the name an
    /// older release reads, so a downgrade never misreads one.
    /// `<peer id>.queue3` is this release's (``QueueFileCodec`` version 3,
    /// with tags); `<peer id>.queue2` is 0.2.0's (version 2) and
    /// `<peer id>.queue` 0.1.0's (version 1), both read only.
    package static let suffix = ".queue3"
    /// 0.2.0's default queue (version 2, read only).
    package static let suffix2 = ".queue2"
    /// 0.1.0's default queue (version 1, read only).
    package static let oldSuffix = ".queue"
    /// An app's queue for a peer: `<peer id>.<app>.appqueue3`, version 3.
    /// Its key here is `<peer id>.<app>` (``QueueKey/storeName(peerID:app:)``).
    package static let appSuffix = ".appqueue3"
    /// An app's queue before tags (version 2, read only): `<peer id>.<app>.appqueue`.
    package static let appSuffix2 = ".appqueue"

    /// The earlier layouts' files of a queue key, newest first: carried
    /// into its version 3 file in that order, after what that file holds.
    private func olderFiles(_ key: String) -> [String] {
        let base = directory + "/" + Self.safeName(key)
        return key.contains(".") ? [base + Self.appSuffix2] : [base + Self.suffix2, base + Self.oldSuffix]
    }

    /// Opens (and creates) `<stateDirectory>/queue`, indexing every queue.
    /// A record cut short by a crash is trimmed; the messages before it
    /// stay. A queue of an earlier release (0.2.0's `.queue2` and
    /// `.appqueue`, 0.1.0's `.queue`) is carried into this release's file
    /// (after what that file holds, if a downgrade left both), then
    /// removed; its messages take new tags there. A queue file of a layout
    /// this release cannot read (a newer one, or a damaged header) is
    /// refused, and nothing is changed.
    package init(stateDirectory: String, limitPerPeer: Int = 64 << 20, logger: Logger,
                newEpoch: @escaping @Sendable () -> UInt64 = { UInt64.random(in: 1...UInt64.max) }) throws(MessageQueueStoreError) {
        self.limitPerPeer = limitPerPeer
        self.newEpoch = newEpoch
        directory = stateDirectory + "/queue"
        let limit = limitPerPeer + (1 << 20)
        do {
            try AtomicFile.makeDirectories(directory)
            var keys: Set<String> = []
            for name in try Self.names(in: directory) {
                for suffix in [Self.suffix, Self.suffix2, Self.oldSuffix, Self.appSuffix, Self.appSuffix2] where name.hasSuffix(suffix) {
                    keys.insert(String(name.dropLast(suffix.count)))
                }
            }
            // Every file is checked before anything is written.
            var read: [String: [UInt8]] = [:]
            for key in keys.sorted() {
                let current = file(key)
                if let bytes = try AtomicFile.read(current, limit: limit) {
                    if let found = Self.unreadableHeader(bytes, expected: QueueFileCodec.header) {
                        throw MessageQueueStoreError.unreadable(path: current, found: found)
                    }
                    read[current] = bytes
                }
                for old in olderFiles(key) {
                    guard let bytes = try AtomicFile.read(old, limit: limit) else { continue }
                    if !old.hasSuffix(Self.oldSuffix), let found = Self.unreadableHeader(bytes, expected: QueueFileCodec.header2) {
                        throw MessageQueueStoreError.unreadable(path: old, found: found)
                    }
                    read[old] = bytes
                }
            }
            for key in keys.sorted() {
                try load(key, read: read, logger: logger)
            }
        } catch let error as MessageQueueStoreError {
            throw error
        } catch let error as SystemError {
            throw .system(error)
        } catch {
            throw .system(SystemError("open", errno: EIO, context: "\(directory): \(error)"))
        }
    }

    /// Indexes one queue from the files read at start-up, carrying an
    /// earlier layout's messages into its version 3 file.
    private mutating func load(_ key: String, read: [String: [UInt8]], logger: Logger) throws(SystemError) {
        let path = file(key)
        // An empty file, or one cut short in its header, holds nothing.
        let current = read[path].map(QueueFileCodec.decode).flatMap { $0.version == 3 ? $0 : nil }
        var epoch = current?.epoch ?? 0
        var records = zip(current?.seqs ?? [], current?.messages ?? []).map { (seq: $0, message: $1) }
        var nextSeq = (current?.lastSeq ?? 0) + 1
        var carried: [String] = []
        for old in olderFiles(key) {
            guard let bytes = read[old] else { continue }
            let messages = QueueFileCodec.decode(bytes).messages
            logger.notice("queue \(old): \(messages.count) messages of an earlier release carried into \(path)")
            for message in messages {
                records.append((nextSeq, message))
                nextSeq += 1
            }
            carried.append(old)
        }
        if epoch == 0 && !records.isEmpty { epoch = newEpoch() }
        if let current, carried.isEmpty, !current.needsRewrite {
            files[key] = (current.epoch, nextSeq)
            deliveredBytes[key] = current.deliveredBytes
            if !records.isEmpty {
                index[key] = zip(current.offsets, records).map { Entry(offset: $0, length: $1.message.count, seq: $1.seq) }
            }
            return
        }
        if let current, current.skippedBytes > 0 || (carried.isEmpty && current.needsRewrite) {
            logger.warning("queue \(path): skipping damaged or cut-short records; \(current.messages.count) messages kept")
        }
        if records.isEmpty {
            // Nothing waits: no file (the next message starts a new epoch).
            if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", errno: errno, context: path) }
        } else {
            try AtomicFile.write(path, contents: QueueFileCodec.encodeFile(epoch: epoch, records: records))
            files[key] = (epoch, nextSeq)
            index[key] = Self.entries(of: records)
        }
        // Only once the messages are in this release's file.
        for old in carried { try Syscall.call("unlink", old) { unlink(old) } }
    }

    /// What is wrong with a queue file's header, if anything, given the
    /// header its name promises: a newer layout, or bytes that are no
    /// header at all. An empty file, or one cut short inside the header,
    /// is an empty queue.
    static func unreadableHeader(_ bytes: [UInt8], expected: [UInt8] = QueueFileCodec.header) -> String? {
        guard !bytes.isEmpty, !bytes.starts(with: expected), !expected.starts(with: bytes) else { return nil }
        let prefix = Array(expected.prefix(6))   // "PEERDQ"
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
    package func count(_ peerID: String) -> Int { index[peerID]?.count ?? 0 }

    /// Bytes waiting for `peerID`.
    package func bytes(_ peerID: String) -> Int { index[peerID]?.reduce(0) { $0 + $1.length } ?? 0 }

    /// Every peer with messages waiting.
    package var peerIDs: [String] { index.keys.sorted() }

    /// Reads waiting messages for `peerID` from the file, oldest first,
    /// with their tags, skipping the first `skip`: as many as fit in
    /// `maxBytes` (none if the first does not), and at most `maxCount`.
    /// Past the first message, no more than `batchBytes` in all: a batch is
    /// the work of one main-queue turn when it is sent.
    package func read(_ peerID: String, skip: Int, maxBytes: Int, batchBytes: Int = .max, maxCount: Int = 4096) throws(SystemError) -> [Queued] {
        guard let entries = index[peerID], skip < entries.count, let epoch = files[peerID]?.epoch else { return [] }
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
        var messages: [Queued] = []
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
            messages.append(Queued(tag: QueueTag(epoch: epoch, seq: entry.seq), data: message))
        }
        return messages
    }

    /// Every message waiting for `peerID`, read from the file (for tests
    /// and tools; the daemon reads in bounded batches with
    /// ``read(_:skip:maxBytes:batchBytes:maxCount:)``).
    package func pending(_ peerID: String) throws(SystemError) -> [[UInt8]] {
        try read(peerID, skip: 0, maxBytes: .max, maxCount: .max).map(\.data)
    }

    /// Appends durably, under the queue's next tag (the first message of a
    /// new file starts a new epoch). Returns false, storing nothing, when
    /// the peer's queue is full. On an error the file is as it was before
    /// the call.
    package mutating func append(_ message: [UInt8], for peerID: String) throws(SystemError) -> Bool {
        guard bytes(peerID) + message.count <= limitPerPeer else { return false }
        if dirty.contains(peerID) { try rewrite(peerID) }
        let path = file(peerID)
        let fd = try Syscall.call("open", path) { open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0o600) }
        let descriptor = FileDescriptor(rawValue: fd)
        defer { descriptor.close() }
        var size = lseek(fd, 0, SEEK_END)
        guard size >= 0 else { throw SystemError("lseek", errno: errno, context: path) }
        var (epoch, seq) = files[peerID] ?? (0, 1)
        var head: [UInt8] = []
        if size == 0 || files[peerID] == nil {
            // A new file: a new epoch, so no tag of an earlier file is reused.
            if size != 0 {
                try Syscall.call("ftruncate", path) { ftruncate(fd, 0) }
                size = 0
            }
            epoch = newEpoch()
            seq = 1
            head = QueueFileCodec.fileHeader(epoch: epoch)
        }
        let record = head + QueueFileCodec.encode(seq: seq, message: message)
        do {
            try descriptor.writeAll(record, context: path)
            try Syscall.call("fsync", path) { fsync(fd) }
        } catch {
            // Cut back to the old length, so no part of this message stays.
            if ftruncate(fd, size) != 0 || fsync(fd) != 0 { dirty.insert(peerID) }
            throw error
        }
        files[peerID] = (epoch, seq + 1)
        index[peerID, default: []].append(Entry(offset: Int(size) + head.count, length: message.count, seq: seq))
        return true
    }

    /// Removes the first `count` messages (the peer acknowledged them):
    /// their records are marked delivered in place, and the file is
    /// rewritten only when it is mostly delivered records (or removed when
    /// nothing waits).
    package mutating func removeFirst(_ count: Int, for peerID: String) throws(SystemError) {
        guard count > 0, var entries = index[peerID] else { return }
        let done = min(count, entries.count)
        let path = file(peerID)
        if done == entries.count {
            index[peerID] = nil
            files[peerID] = nil
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
    /// messages (read back from the file first; at most ``limitPerPeer``),
    /// keeping its epoch and their seqs; removes it when nothing waits.
    private mutating func rewrite(_ peerID: String) throws(SystemError) {
        let waiting = try read(peerID, skip: 0, maxBytes: .max, maxCount: .max)
        deliveredBytes[peerID] = nil
        dirty.remove(peerID)
        guard let epoch = files[peerID]?.epoch, !waiting.isEmpty else {
            let path = file(peerID)
            index[peerID] = nil
            files[peerID] = nil
            if unlink(path) != 0 && errno != ENOENT { throw SystemError("unlink", errno: errno, context: path) }
            return
        }
        let records = waiting.map { (seq: $0.tag.seq, message: $0.data) }
        try AtomicFile.write(file(peerID), contents: QueueFileCodec.encodeFile(epoch: epoch, records: records))
        index[peerID] = Self.entries(of: records)
    }

    /// Where each record is in a file written whole from these records.
    private static func entries(of records: [(seq: UInt64, message: [UInt8])]) -> [Entry] {
        var start = QueueFileCodec.headerSize
        return records.map { record in
            defer { start += QueueFileCodec.recordOverhead + record.message.count }
            return Entry(offset: start, length: record.message.count, seq: record.seq)
        }
    }

    /// Drops a peer's queue (it was unpaired).
    package mutating func discard(_ peerID: String) throws(SystemError) {
        try removeFirst(Int.max, for: peerID)
    }

    /// The file of a queue key: `<peer id>.queue3` for the default app,
    /// `<peer id>.<app>.appqueue3` for an app's.
    private func file(_ key: String) -> String {
        let name = Self.safeName(key)
        return directory + "/" + name + (name.contains(".") ? Self.appSuffix : Self.suffix)
    }

    /// A queue key as a file name's stem: peer ids are hex and app names
    /// [a-z0-9-]; anything else never names a file.
    private static func safeName(_ key: String) -> String {
        let parts = key.split(separator: ".", maxSplits: 1).map(String.init)
        let peer = String((parts.first ?? "").filter { $0.isHexDigit })
        guard parts.count == 2 else { return peer }
        return peer + "." + String(parts[1].filter { $0.isLowercase || $0.isNumber || $0 == "-" })
    }
}
