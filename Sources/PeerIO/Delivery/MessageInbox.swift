import FoundationEssentials
import Glibc
import PeerCore

/// The durable inbox: messages that arrived while no client took them, in
/// one append-only file, `<state-dir>/inbox` (``InboxFileCodec``).
///
/// Memory holds only the index; data is read back when a client takes it.
/// An append is `fdatasync`ed before it returns, so the peer is acknowledged
/// only for what is on disk. An append that fails (a full disk) leaves the
/// file as it was: it is cut back, or, if even that fails, the next change
/// rewrites the file whole from the index. Taking a message rewrites its one
/// state byte; the file is emptied once nothing waits, and compacted when
/// taken records make up most of it.
public final class MessageInbox {
    /// The inbox file.
    public let path: String
    /// The most record bytes it holds (`--inbox-size`).
    public let limit: Int
    /// What waits, and where each record is.
    public private(set) var index: InboxIndex
    /// The waiting messages, oldest first.
    public var entries: ArraySlice<InboxEntry> { index.entries }
    /// Record bytes of the waiting messages.
    public var bytes: Int { index.bytes }
    private var descriptor: FileDescriptor
    private var fileSize: Int
    private var nextID: UInt64
    /// The file may hold bytes the index does not know of (a failed append
    /// could not be cut back): the next change rewrites it first.
    private var damaged = false

    /// Opens (and creates) the inbox `fileName` under `stateDirectory`
    /// (`inbox`, or an app's `inbox.NAME`), loading its index. Damaged
    /// records are skipped and the file rewritten without them.
    public init(stateDirectory: String, fileName: String = "inbox", limit: Int, logger: Logger) throws(SystemError) {
        self.limit = limit
        let path = stateDirectory + "/" + fileName
        self.path = path
        try AtomicFile.makeDirectories(stateDirectory)
        // Read whole, whatever --inbox-size is now: what was stored under a
        // larger limit is still delivered (new messages wait until it drains).
        let existing = try AtomicFile.read(path, limit: Int(Int32.max)) ?? []
        // A file of another layout is never rewritten (see ``unreadableHeader(_:)``).
        if let found = Self.unreadableHeader(existing) {
            throw SystemError("open", errno: EPROTO, context: "\(path): \(found)")
        }
        let decoded = InboxFileCodec.decode(existing)
        nextID = decoded.lastID + 1
        let fd = try Syscall.call("open", path) { open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600) }
        descriptor = FileDescriptor(rawValue: fd)
        fileSize = existing.count
        index = InboxIndex(decoded.entries)
        if existing.isEmpty || decoded.skippedBytes > 0 || decoded.wholeBytes != existing.count {
            if !existing.isEmpty {
                logger.warning("inbox \(path): skipping \(existing.count - decoded.wholeBytes + decoded.skippedBytes) bytes of damaged or cut-short records; \(entries.count) messages kept")
            }
            damaged = true
            try rewrite()
        }
    }

    deinit { descriptor.close() }

    /// What is wrong with an inbox file's header, if anything: another
    /// layout (a newer release's), or bytes that are no header. peerd
    /// refuses to start on either rather than rewrite it (the daemon checks
    /// before anything opens it).
    public static func unreadableHeader(_ bytes: [UInt8]) -> String? {
        // A header cut short by a crash holds nothing yet: rewritten as usual.
        guard !bytes.isEmpty, !bytes.starts(with: InboxFileCodec.header), !InboxFileCodec.header.starts(with: bytes) else { return nil }
        let head = String(decoding: bytes.prefix(8).map { (0x20...0x7e).contains($0) ? $0 : 0x3f }, as: UTF8.self)
        if bytes.starts(with: Array("PEERDI".utf8)) { return "an inbox of another layout (its header says \(head))" }
        return "a damaged header (\(head))"
    }

    /// ``unreadableHeader(_:)`` of the inbox under `stateDirectory`, read
    /// from its first bytes; nil when it is absent or readable.
    public static func unreadableHeader(stateDirectory: String, fileName: String = "inbox") -> (path: String, found: String)? {
        let path = stateDirectory + "/" + fileName
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var head = [UInt8](repeating: 0, count: InboxFileCodec.header.count)
        let count = read(fd, &head, head.count)
        guard count > 0 else { return nil }
        return unreadableHeader(Array(head[0..<count])).map { (path, $0) }
    }

    /// Stores `data` from `peerID`, durably. Returns its entry; on an error
    /// nothing is stored and the file is as it was.
    public func append(_ data: [UInt8], from peerID: String, at time: Date) throws(SystemError) -> InboxEntry {
        if damaged { try rewrite() }
        let record = InboxFileCodec.encode(id: nextID, received: time, peerID: peerID, data: data)
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
                               size: data.count, offset: start)
        nextID += 1
        fileSize += record.count
        index.append(entry)
        return entry
    }

    /// The data of waiting message `id`, read back and checked.
    public func data(id: UInt64) throws(SystemError) -> [UInt8] {
        guard let entry = index.entry(id: id) else { throw SystemError("pread", errno: ENOENT, context: "\(path): message \(id) is not waiting") }
        return try data(of: entry)
    }

    /// The data of a waiting message, read back and checked.
    public func data(of entry: InboxEntry) throws(SystemError) -> [UInt8] {
        var record = [UInt8](repeating: 0, count: entry.recordSize)
        let count = try Syscall.call("pread", path) { record.withUnsafeMutableBytes { pread(descriptor.rawValue, $0.baseAddress, $0.count, off_t(entry.offset)) } }
        guard count == record.count, let data = InboxFileCodec.data(ofRecord: record) else {
            throw SystemError("pread", errno: EIO, context: "\(path): message \(entry.id) does not read back whole")
        }
        return data
    }

    /// Marks messages taken: they leave the inbox for good.
    public func remove(_ ids: Set<UInt64>) throws(SystemError) {
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
        if damaged || entries.isEmpty || fileSize > 2 * (bytes + InboxFileCodec.header.count) + (1 << 20) {
            try rewrite()
        }
    }

    /// Writes the waiting messages to a new file and renames it over the
    /// old one, streaming record by record (never the whole inbox in memory).
    private func rewrite() throws(SystemError) {
        if entries.isEmpty {
            // Nothing waits: the header alone, in place.
            try Syscall.call("ftruncate", path) { ftruncate(descriptor.rawValue, 0) }
            try Syscall.call("pwrite", path) { InboxFileCodec.header.withUnsafeBytes { pwrite(descriptor.rawValue, $0.baseAddress, $0.count, 0) } }
                .checkWhole(InboxFileCodec.header.count, path: path)
            try Syscall.call("fdatasync", path) { fdatasync(descriptor.rawValue) }
            fileSize = InboxFileCodec.header.count
            index = InboxIndex()
            damaged = false
            return
        }
        let temporary = "\(path).tmp.\(getpid())"
        unlink(temporary)
        let fd = try Syscall.call("open", temporary) { open(temporary, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0o600) }
        let file = FileDescriptor(rawValue: fd)
        var moved: [InboxEntry] = []
        var size = InboxFileCodec.header.count
        do {
            try file.writeAll(InboxFileCodec.header, context: temporary)
            for entry in entries {
                let record = InboxFileCodec.encode(id: entry.id, received: entry.received, peerID: entry.peerID, data: try data(of: entry))
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
