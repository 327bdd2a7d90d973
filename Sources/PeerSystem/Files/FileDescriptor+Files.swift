import CFiles
import Glibc

/// Thin, typed file calls for transfers (issue 12): positioned reads and
/// writes, directories walked without following symlinks, and a rename
/// that never overwrites. Every failure is a ``SystemError`` naming the
/// call and what it was for.
extension FileDescriptor {
    /// The `open` flag that writes past the page cache (`O_DIRECT`, which
    /// glibc's Swift module does not export; issue 44, ``AlignedBuffer``).
    public static let directFlag = Int32(PEERD_O_DIRECT)

    /// Opens `name` relative to the directory `self` (`AT_FDCWD` for the
    /// working directory), close-on-exec; `O_NOFOLLOW` is always added, so
    /// a symlink is refused (`ELOOP`), never followed.
    public func openAt(_ name: String, flags: Int32, mode: mode_t = 0o600) throws(SystemError) -> FileDescriptor {
        let fd = try Syscall.call("openat", name) { Glibc.openat(rawValue, name, flags | O_NOFOLLOW | O_CLOEXEC, mode) }
        return FileDescriptor(rawValue: fd)
    }

    /// Opens (making it if missing, mode 0700) the directory `name` inside
    /// the directory `self`, refusing a symlink.
    public func directory(_ name: String, create: Bool) throws(SystemError) -> FileDescriptor {
        if create {
            do {
                try Syscall.call("mkdirat", name) { Glibc.mkdirat(rawValue, name, 0o700) }
            } catch where error.errno == EEXIST {}
        }
        return try openAt(name, flags: O_RDONLY | O_DIRECTORY)
    }

    /// Reads up to `buffer.count` bytes at `offset`; fewer only at the end of the file.
    public func read(into buffer: UnsafeMutableRawBufferPointer, at offset: Int64) throws(SystemError) -> Int {
        var done = 0
        while done < buffer.count {
            let start = done
            let count = try Syscall.call("pread") { Glibc.pread(rawValue, buffer.baseAddress! + start, buffer.count - start, off_t(offset) + off_t(start)) }
            if count == 0 { break }
            done += count
        }
        return done
    }

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: UnsafeRawBufferPointer, at offset: Int64) throws(SystemError) {
        var done = 0
        while done < bytes.count {
            let start = done
            done += try Syscall.call("pwrite") { Glibc.pwrite(rawValue, bytes.baseAddress! + start, bytes.count - start, off_t(offset) + off_t(start)) }
        }
    }

    /// Writes all of `bytes` at `offset`.
    public func write(_ bytes: [UInt8], at offset: Int64) throws(SystemError) {
        let outcome: Result<Void, SystemError> = bytes.withUnsafeBytes { raw in Result { () throws(SystemError) in try write(raw, at: offset) } }
        try outcome.get()
    }

    /// Reads up to `count` bytes at `offset` (fewer at the end of the file).
    public func read(count: Int, at offset: Int64) throws(SystemError) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: count)
        let outcome: Result<Int, SystemError> = bytes.withUnsafeMutableBytes { raw in Result { () throws(SystemError) in try read(into: raw, at: offset) } }
        bytes.removeLast(count - (try outcome.get()))
        return bytes
    }

    /// Reads `count` bytes at `offset` into the start of `buffer` (which
    /// must hold them); returns how many came (fewer only at the end).
    public func read(into buffer: inout [UInt8], count: Int, at offset: Int64) throws(SystemError) -> Int {
        precondition(count <= buffer.count, "the buffer holds \(buffer.count) bytes, not \(count)")
        let outcome: Result<Int, SystemError> = buffer.withUnsafeMutableBytes { raw in
            Result { () throws(SystemError) in try read(into: UnsafeMutableRawBufferPointer(rebasing: raw[0..<count]), at: offset) }
        }
        return try outcome.get()
    }

    /// Size, mode, modification time and type.
    public func status() throws(SystemError) -> stat {
        var info = stat()
        try Syscall.call("fstat") { Glibc.fstat(rawValue, &info) }
        return info
    }

    /// Whether `name` exists in the directory `self` (a symlink counts; it is not followed).
    public func contains(_ name: String) throws(SystemError) -> Bool {
        var info = stat()
        do {
            try Syscall.call("fstatat", name) { Glibc.fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) }
            return true
        } catch where error.errno == ENOENT {
            return false
        }
    }

    /// Bytes free for an unprivileged writer on this file's file system.
    public func freeBytes() throws(SystemError) -> Int64 {
        var info = statvfs()
        try Syscall.call("fstatvfs") { Glibc.fstatvfs(rawValue, &info) }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// Bytes and inodes free for an unprivileged writer on this file's
    /// file system; inodes nil where it has no fixed number (`f_files` 0,
    /// as on btrfs).
    public func freeSpace() throws(SystemError) -> (bytes: Int64, inodes: Int64?) {
        var info = statvfs()
        try Syscall.call("fstatvfs") { Glibc.fstatvfs(rawValue, &info) }
        return (Int64(info.f_bavail) * Int64(info.f_frsize), info.f_files == 0 ? nil : Int64(info.f_favail))
    }

    /// Flushes the file's data (and the metadata needed to read it) to disk.
    public func syncData() throws(SystemError) {
        try Syscall.call("fdatasync") { Glibc.fdatasync(rawValue) }
    }

    /// Flushes everything (for a directory: the names in it).
    public func sync() throws(SystemError) {
        try Syscall.call("fsync") { Glibc.fsync(rawValue) }
    }

    /// Sets the permission bits.
    public func setMode(_ mode: mode_t) throws(SystemError) {
        try Syscall.call("fchmod") { Glibc.fchmod(rawValue, mode) }
    }

    /// Sets the access and modification times to `seconds` since the epoch.
    public func setModified(_ seconds: Int64) throws(SystemError) {
        var times = [timespec(tv_sec: Int(seconds), tv_nsec: 0), timespec(tv_sec: Int(seconds), tv_nsec: 0)]
        try Syscall.call("futimens") { Glibc.futimens(rawValue, &times) }
    }

    /// Starts writing `count` bytes at `offset` to disk, without waiting
    /// for them (`sync_file_range` with `SYNC_FILE_RANGE_WRITE`).
    public func startWriteback(offset: Int64, count: Int64) {
        _ = peerd_sync_file_range(rawValue, offset, count, UInt32(PEERD_SYNC_FILE_RANGE_WRITE))
    }

    /// Cuts or extends the file to `size` bytes.
    public func truncate(_ size: Int64) throws(SystemError) {
        try Syscall.call("ftruncate") { Glibc.ftruncate(rawValue, off_t(size)) }
    }

    /// Renames `from` to `to`, both in the directory `self`, failing with
    /// `EEXIST` rather than replacing a file already at `to`.
    public func renameNoReplace(_ from: String, to: String) throws(SystemError) {
        try Syscall.call("renameat2", "\(from) → \(to)") { peerd_renameat2(rawValue, from, rawValue, to, UInt32(PEERD_RENAME_NOREPLACE)) }
    }

    /// Removes the file `name` in the directory `self`; a missing one is fine.
    public func remove(_ name: String) throws(SystemError) {
        do {
            try Syscall.call("unlinkat", name) { Glibc.unlinkat(rawValue, name, 0) }
        } catch where error.errno == ENOENT {}
    }
}
