import Glibc
import PeerCore
import PeerProtocol
import PeerSystem

/// The disk work of ``DownloadShelf`` (issue 45), run on its own
/// ``DiskWorker`` so a long copy delays no session, no client and no
/// transfer's own disk queue: a folder's entries read, and landed files
/// copied into descriptors a client opened. Below the download directory
/// nothing is followed (every step is `O_NOFOLLOW`), as where files land.
struct ShelfDisk {
    /// The download directory's path.
    let downloads: String

    /// Opens the folder `components` below the download directory (the
    /// directory itself for none), never following a symlink.
    func open(_ components: [String]) throws(SystemError) -> FileDescriptor {
        let root = try FileDescriptor(rawValue: AT_FDCWD).openAt(downloads, flags: O_RDONLY | O_DIRECTORY)
        defer { root.close() }
        return try root.walk(components)
    }

    /// The entries of folder `components` that a client may see; `atBase`:
    /// it is the top of the default app's directory.
    func entries(_ components: [String], atBase: Bool) -> Result<[DownloadEntry], ControlError> {
        let folder: FileDescriptor
        do { folder = try open(components) } catch {
            let shown = components.joined(separator: "/")
            if error.errno == ENOENT {
                // The download directory itself before anything landed: empty.
                return components.isEmpty ? .success([]) : .failure(ControlError(.notFound, "no folder '\(shown)' in the download directory"))
            }
            return .failure(ControlError(.storageFailed, "cannot open '\(shown)' in the download directory: \(error)"))
        }
        defer { folder.close() }
        var entries: [DownloadEntry] = []
        var tooMany = false
        folder.forEachEntry { name, kind in
            guard kind != .other, DownloadListing.shows(name, atBase: atBase) else { return true }
            guard entries.count < DownloadListing.maxEntries else {
                tooMany = true
                return false
            }
            guard let info = try? folder.status(of: name) else { return true }
            entries.append(DownloadEntry(name: name, kind: kind == .folder ? DownloadEntry.folder : DownloadEntry.file,
                                         size: kind == .folder ? 0 : Int64(info.st_size), mode: UInt32(info.st_mode & 0o777),
                                         mtime: Int64(info.st_mtim.tv_sec)))
            return true
        }
        if tooMany {
            return .failure(ControlError(.overloaded, "the folder has more than \(DownloadListing.maxEntries) entries; fetch from its subfolders"))
        }
        return .success(entries)
    }

    /// Copies the landed file `path` (below folder `base`) into `target`,
    /// flushes the copy, and then, unless `keep`, removes peerd's own (its
    /// folders stay). A file that fails is reported and left where it was.
    /// Closes `target`.
    func fetch(base: [String], path: TransferPath, into target: FileDescriptor, keep: Bool) -> FetchedFile {
        defer { target.close() }
        return BulkThread.run { copy(base: base, path: path, into: target, keep: keep) }
    }

    private func copy(base: [String], path: TransferPath, into target: FileDescriptor, keep: Bool) -> FetchedFile {
        let shown = path.description
        let folders = Array(path.components.dropLast())
        guard let name = path.components.last else { return FetchedFile(path: shown, error: "empty path") }
        do {
            let targetInfo = try target.status()
            guard targetInfo.st_mode & S_IFMT == S_IFREG else { return FetchedFile(path: shown, error: "the descriptor given for it is not a regular file") }
            let access = fcntl(target.rawValue, F_GETFL) & O_ACCMODE
            guard access == O_WRONLY || access == O_RDWR else { return FetchedFile(path: shown, error: "the descriptor given for it is not open for writing") }
            let folder = try open(base + folders)
            defer { folder.close() }
            let source = try folder.openAt(name, flags: O_RDONLY)
            defer { source.close() }
            let info = try source.status()
            guard info.st_mode & S_IFMT == S_IFREG else { return FetchedFile(path: shown, error: "not a file") }
            let size = try source.copyAll(to: target)
            // The client's copy is on its disk before peerd's goes.
            try target.sync()
            var removed = false
            if !keep {
                // Only the file: its folders stay, since a transfer may be
                // about to land in one (a removed folder would fail it).
                removed = Glibc.unlinkat(folder.rawValue, name, 0) == 0
            }
            return FetchedFile(path: shown, size: size, mode: UInt32(info.st_mode & 0o777), mtime: Int64(info.st_mtim.tv_sec), removed: removed)
        } catch {
            return FetchedFile(path: shown, error: error.errno == ENOENT ? "no such file in the download directory" : "\(error)")
        }
    }
}
