import Glibc
import PeerCore
import PeerSystem
import Synchronization
import PeerProtocol

/// One incoming transfer's ``PlacedRecord`` on disk
/// (`STATE_DIR/transfers/FLOW.placed`): the small files of a batch are
/// marked in it with one flush, after their bytes are flushed and before
/// they are renamed into place (``PartialFile/finishAll(_:)``), and a
/// resume reads it (``PartialFile/resumePoint(expected:)``).
///
/// The disk queue marks; the main actor reads while it decides an answer.
/// The descriptor, opened at the first mark, is behind a `Mutex` the
/// compiler checks; a read opens the file on its own.
package final class PlacedLog: Sendable {
    /// The folder it is in (`STATE_DIR/transfers`).
    package let folder: String
    /// Its file name.
    package let name: String
    /// The header it is made with.
    package let header: PlacedRecord.Header
    private let open = Mutex<FileDescriptor?>(nil)

    /// The record of `header`'s transfer in `folder`; opens nothing yet.
    package init(folder: String, header: PlacedRecord.Header) {
        self.folder = folder
        self.header = header
        name = Self.fileName(header.flow)
    }

    /// The file name for transfer `flow`.
    package static func fileName(_ flow: FlowID) -> String { "\(flow).placed" }

    /// The path, for errors.
    var path: String { folder + "/" + name }

    /// Marks `files` (number, block hash) in place, and flushes: once this
    /// returns, a resume finds each of them. The first mark makes the file
    /// (a header of this boot) and flushes the folder's entry for it.
    package func mark(_ files: [(file: Int, hash: [UInt8])]) throws(SystemError) {
        guard !files.isEmpty else { return }
        try open.withLock { (fd: inout FileDescriptor?) throws(SystemError) in
            let file: FileDescriptor
            if let fd { file = fd } else { file = try create() }
            fd = file
            for entry in files {
                let slot = PlacedRecord.slot(file: entry.file, hash: entry.hash)
                try file.write(slot.bytes, at: slot.offset)
            }
            try file.sync()
        }
    }

    /// Opens the file, giving it a header if it has none (a resume after a
    /// restart keeps the slots that are there).
    private func create() throws(SystemError) -> FileDescriptor {
        if mkdir(folder, 0o700) != 0 && errno != EEXIST { throw SystemError("mkdir", errno: errno, context: folder) }
        let directory = try FileDescriptor(rawValue: AT_FDCWD).openAt(folder, flags: O_RDONLY | O_DIRECTORY)
        defer { directory.close() }
        let file = try directory.openAt(name, flags: O_RDWR | O_CREAT)
        do throws(SystemError) {
            let size = try file.status().st_size
            let existing = size >= PlacedRecord.headerLength ? PlacedRecord.decode(try file.read(count: PlacedRecord.headerLength, at: 0)) : nil
            if existing?.header.flow != header.flow {
                // None yet, or damaged: a fresh record (its slots could not be trusted).
                try file.truncate(0)
                try file.write(PlacedRecord.encode(header), at: 0)
                try file.sync()
                try directory.sync()
            }
            return file
        } catch {
            file.close()
            throw error
        }
    }

    /// What is on disk for up to `files` files: nil without a record, or
    /// for a damaged one.
    package func read(files: Int) -> (header: PlacedRecord.Header, hashes: [Int: [UInt8]])? {
        guard let file = try? FileDescriptor(rawValue: AT_FDCWD).openAt(path, flags: O_RDONLY) else { return nil }
        defer { file.close() }
        let length = PlacedRecord.headerLength + BlockRecord.slotLength * max(0, files)
        return (try? file.read(count: length, at: 0)).flatMap(PlacedRecord.decode)
    }

    /// Removes the file (the transfer ended) and closes it.
    package func remove() {
        open.withLock { fd in
            fd?.close()
            fd = nil
        }
        unlink(path)
    }
}
