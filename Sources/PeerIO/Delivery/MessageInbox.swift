import FoundationEssentials
import Glibc
import PeerCore

/// The durable inbox: messages that arrived while no client took them, in
/// one append-only file, `<state-dir>/inbox2` (``InboxFileCodec``).
///
/// Memory holds only the index; data is read back when a client takes it.
/// An append is `fdatasync`ed before it returns, so the peer is acknowledged
/// only for what is on disk. An append that fails (a full disk) leaves the
/// file as it was: it is cut back, or, if even that fails, the next change
/// rewrites the file whole from the index. Taking a message rewrites its one
/// state byte; the file is emptied once nothing waits, and compacted when
/// taken records make up most of it.
///
/// It also keeps the marks of exactly-once delivery (issue 42, point 6):
/// per sender, the tag of the last queued message stored. A tagged
/// message and its mark are one write (the mark is in its record); a
/// compaction carries the marks of records it drops into the new file's
/// header, in the same rename.
package final class MessageInbox {
    /// The inbox file.
    package let path: String
    /// The most record bytes it holds (`--inbox-size`).
    package let limit: Int
    /// What waits, and where each record is.
    package private(set) var index: InboxIndex
    /// Per sender, the tag of the last queued message stored here.
    package private(set) var marks: [String: QueueTag]
    /// The waiting messages, oldest first.
    package var entries: ArraySlice<InboxEntry> { index.entries }
    /// Record bytes of the waiting messages.
    package var bytes: Int { index.bytes }
    private var descriptor: FileDescriptor
    private var fileSize: Int
    private var nextID: UInt64
    /// The file may hold bytes the index does not know of (a failed append
    /// could not be cut back): the next change rewrites it first.
    private var damaged = false

    /// Opens (and creates) the inbox `fileName` under `stateDirectory`
    /// (`inbox2`, or an app's `inbox2.NAME`), loading its index and marks.
    /// Damaged records are skipped and the file rewritten without them.
    /// An earlier release's inbox, `oldFileName` (`inbox`, `inbox.NAME`),
    /// is carried in after what the file holds (its messages take new
    /// ids), then removed.
    package init(stateDirectory: String, fileName: String = "inbox2", oldFileName: String? = "inbox", limit: Int,
                logger: Logger) throws(SystemError) {
        self.limit = limit
        let path = stateDirectory + "/" + fileName
        self.path = path
        try AtomicFile.makeDirectories(stateDirectory)
        // Read whole, whatever --inbox-size is now: what was stored under a
        // larger limit is still delivered (new messages wait until it drains).
        var existing = try AtomicFile.read(path, limit: Int(Int32.max)) ?? []
        // A file of another layout is never rewritten (see ``unreadableHeader(_:expected:)``).
        if let found = Self.unreadableHeader(existing) {
            throw SystemError("open", errno: EPROTO, context: "\(path): \(found)")
        }
        let oldPath = oldFileName.map { stateDirectory + "/" + $0 }
        if let oldPath, let old = try AtomicFile.read(oldPath, limit: Int(Int32.max)) {
            if let found = Self.unreadableHeader(old, expected: InboxFileCodec.header1) {
                throw SystemError("open", errno: EPROTO, context: "\(oldPath): \(found)")
            }
            existing = try Self.carry(old, from: oldPath, into: existing, at: path, logger: logger)
        }
        // Version 2, or no header at all (empty, or cut short): nothing then.
        let decoded = InboxFileCodec.decode(existing)
        nextID = decoded.lastID + 1
        marks = decoded.marks
        let fd = try Syscall.call("open", path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        descriptor = FileDescriptor(rawValue: fd)
        fileSize = existing.count
        index = InboxIndex(decoded.entries)
        if decoded.marksDamaged { logger.warning("inbox \(path): its marks are damaged; a queued message sent again may be kept twice") }
        if existing.isEmpty || decoded.skippedBytes > 0 || decoded.wholeBytes != existing.count {
            if !existing.isEmpty {
                logger.warning("inbox \(path): skipping \(existing.count - decoded.wholeBytes + decoded.skippedBytes) bytes of damaged or cut-short records; \(entries.count) messages kept")
            }
            damaged = true
            try rewrite()
        }
    }

    /// Carries an earlier release's inbox (`old`, version 1) into this
    /// one's (`current`, version 2, possibly empty): the waiting messages of
    /// both, the old ones after, written by rename; the old file is removed
    /// only then. Returns the new file's bytes.
    private static func carry(_ old: [UInt8], from oldPath: String, into current: [UInt8], at path: String,
                              logger: Logger) throws(SystemError) -> [UInt8] {
        let kept = InboxFileCodec.decode(current)
        let carried = InboxFileCodec.decode(old)
        var nextID = kept.lastID + 1
        var file: [UInt8] = []
        if kept.version == 2 {
            for entry in kept.entries {
                guard let data = InboxFileCodec.data(ofRecord: current, at: entry.offset, version: 2) else { continue }
                file += InboxFileCodec.encode(id: entry.id, received: entry.received, peerID: entry.peerID, tag: entry.tag, data: data)
            }
        }
        for entry in carried.entries where carried.version == 1 {
            guard let data = InboxFileCodec.data(ofRecord: old, at: entry.offset, version: 1) else { continue }
            file += InboxFileCodec.encode(id: nextID, received: entry.received, peerID: entry.peerID, data: data)
            nextID += 1
        }
        file = InboxFileCodec.fileHeader(lastID: nextID - 1, marks: kept.version == 2 ? kept.marks : [:]) + file
        try AtomicFile.write(path, contents: file)
        try Syscall.call("unlink", oldPath) { unlink(oldPath) }
        logger.notice("inbox \(oldPath): \(carried.entries.count) messages of an earlier release carried into \(path)")
        return file
    }

    deinit { descriptor.close() }

    /// What is wrong with an inbox file's header, if anything, given the
    /// header its name promises: another layout (a newer release's), or
    /// bytes that are no header. peerd refuses to start on either rather
    /// than rewrite it (the daemon checks before anything opens it).
    package static func unreadableHeader(_ bytes: [UInt8], expected: [UInt8] = InboxFileCodec.header) -> String? {
        // A header cut short by a crash holds nothing yet: rewritten as usual.
        guard !bytes.isEmpty, !bytes.starts(with: expected), !expected.starts(with: bytes) else { return nil }
        let head = String(decoding: bytes.prefix(8).map { (0x20...0x7e).contains($0) ? $0 : 0x3f }, as: UTF8.self)
        if bytes.starts(with: Array("PEERDI".utf8)) { return "an inbox of another layout (its header says \(head))" }
        return "a damaged header (\(head))"
    }

    /// ``unreadableHeader(_:expected:)`` of the inbox `fileName` under
    /// `stateDirectory`, read from its first bytes; nil when it is absent
    /// or readable. `expected` is the header its name promises.
    package static func unreadableHeader(stateDirectory: String, fileName: String = "inbox2",
                                        expected: [UInt8] = InboxFileCodec.header) -> (path: String, found: String)? {
        let path = stateDirectory + "/" + fileName
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: expected.count)
        let count = read(fd, &head, head.count)
        guard count > 0 else { return nil }
        return unreadableHeader(Array(head[0..<count]), expected: expected).map { (path, $0) }
    }

    /// Stores `data` from `peerID`, durably. Returns its entry; on an error
    /// nothing is stored and the file is as it was.
    /// `tag`, for a queued message, is stored in its record: the mark that
    /// keeps a repeat out is written with the message, in one write.
    package func append(_ data: [UInt8], from peerID: String, at time: Date, tag: QueueTag? = nil) throws(SystemError) -> InboxEntry {
        if damaged { try rewrite() }
        let record = InboxFileCodec.encode(id: nextID, received: time, peerID: peerID, tag: tag, data: data)
        let start = fileSize
        do {
            try Syscall.call("pwrite", path) { record.withUnsafeBytes { pwrite(descriptor.rawValue, $0.baseAddress, $0.count, off_t(start)) } }
                .checkWhole(record.count, path: path)
            try Syscall.call("fdatasync", path) { fdatasync(descriptor.rawValue) }
        } catch {
            // Cut back, so no part of this message stays.
            if ftruncate(descriptor.rawValue, off_t(start)) != 0 || fdatasync(descriptor.rawValue) != 0 { damaged = true }
            throw error
        }
        let entry = InboxEntry(id: nextID, peerID: peerID, received: Date(timeIntervalSince1970: (time.timeIntervalSince1970 * 1000).rounded() / 1000),
                               size: data.count, offset: start, tag: tag)
        if let tag { marks[peerID] = tag }
        nextID += 1
        fileSize += record.count
        index.append(entry)
        return entry
    }

    /// The data of waiting message `id`, read back and checked.
    package func data(id: UInt64) throws(SystemError) -> [UInt8] {
        guard let entry = index.entry(id: id) else { throw SystemError("pread", errno: ENOENT, context: "\(path): message \(id) is not waiting") }
        return try data(of: entry)
    }

    /// The data of a waiting message, read back and checked.
    package func data(of entry: InboxEntry) throws(SystemError) -> [UInt8] {
        var record = [UInt8](repeating: 0, count: entry.recordSize)
        let count = try Syscall.call("pread", path) { record.withUnsafeMutableBytes { pread(descriptor.rawValue, $0.baseAddress, $0.count, off_t(entry.offset)) } }
        guard count == record.count, let data = InboxFileCodec.data(ofRecord: record) else {
            throw SystemError("pread", errno: EIO, context: "\(path): message \(entry.id) does not read back whole")
        }
        return data
    }

    /// Marks messages taken: they leave the inbox for good.
    package func remove(_ ids: Set<UInt64>) throws(SystemError) {
        let gone = ids.compactMap { index.entry(id: $0) }
        guard !gone.isEmpty else { return }
        if !damaged {
            for entry in gone {
                var state = InboxFileCodec.taken
                try Syscall.call("pwrite", path) { pwrite(descriptor.rawValue, &state, 1, off_t(entry.offset + InboxFileCodec.stateOffset)) }
            }
            try Syscall.call("fdatasync", path) { fdatasync(descriptor.rawValue) }
        }
        index.remove(ids)
        // Emptied at once when nothing waits and nothing is marked; with
        // marks, compacted like any file (a rename a message would cost
        // too much where every queued message passes through).
        let head = InboxFileCodec.fixedHeaderSize + InboxFileCodec.markSize * marks.count
        if damaged || (entries.isEmpty && marks.isEmpty) || fileSize > 2 * (bytes + head) + (1 << 20) {
            try rewrite()
        }
    }

    /// Writes the waiting messages to a new file and renames it over the
    /// old one, streaming record by record (never the whole inbox in memory).
    private func rewrite() throws(SystemError) {
        let head = InboxFileCodec.fileHeader(lastID: nextID - 1, marks: marks)
        if entries.isEmpty && marks.isEmpty {
            // Nothing waits and nothing is marked: the header alone, in
            // place. (With marks, the rename below: they are never cut.)
            try Syscall.call("ftruncate", path) { ftruncate(descriptor.rawValue, 0) }
            try Syscall.call("pwrite", path) { head.withUnsafeBytes { pwrite(descriptor.rawValue, $0.baseAddress, $0.count, 0) } }
                .checkWhole(head.count, path: path)
            try Syscall.call("fdatasync", path) { fdatasync(descriptor.rawValue) }
            fileSize = head.count
            index = InboxIndex()
            damaged = false
            return
        }
        let temporary = "\(path).tmp.\(getpid())"
        unlink(temporary)
        let fd = try Syscall.call("open", temporary) { open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        let file = FileDescriptor(rawValue: fd)
        var moved: [InboxEntry] = []
        var size = head.count
        do {
            try file.writeAll(head, context: temporary)
            for entry in entries {
                let record = InboxFileCodec.encode(id: entry.id, received: entry.received, peerID: entry.peerID, tag: entry.tag,
                                                   data: try data(of: entry))
                try file.writeAll(record, context: temporary)
                var copy = entry
                copy.offset = size
                moved.append(copy)
                size += record.count
            }
            try Syscall.call("fsync", temporary) { fsync(fd) }
            try Syscall.call("rename", path) { rename(temporary, path) }
        } catch {
            file.close()
            unlink(temporary)
            throw error
        }
        descriptor.close()
        descriptor = file
        fileSize = size
        index = InboxIndex(moved)
        damaged = false
        let directory = String(path[..<(path.lastIndex(of: "/") ?? path.startIndex)])
        let dirFD = open(directory.isEmpty ? "/" : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        if dirFD >= 0 {
            fsync(dirFD)
            close(dirFD)
        }
    }
}

private extension Int {
    /// A short write to a regular file means the disk is full.
    func checkWhole(_ expected: Int, path: String) throws(SystemError) {
        guard self == expected else { throw SystemError("pwrite", errno: ENOSPC, context: "\(path): \(self) of \(expected) bytes written") }
    }
}
