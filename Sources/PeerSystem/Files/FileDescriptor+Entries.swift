import Glibc

extension FileDescriptor {
    /// What a folder's entry is, as `readdir` (or `fstatat`, where the
    /// file system does not say) tells it, never following a symlink.
    public enum EntryKind: Sendable, Equatable {
        /// A folder.
        case folder
        /// A regular file.
        case file
        /// Anything else: a symlink, a device, a socket, a FIFO.
        case other
    }

    /// Calls `visit` with each entry of the folder `self` (not `.` and
    /// `..`) as it is read, so a folder of 100,000 files costs no list:
    /// its name and kind. `visit` returns false to stop. A folder that
    /// cannot be read calls nothing.
    public func forEachEntry(_ visit: (String, EntryKind) -> Bool) {
        let copy = dup(rawValue)
        guard copy >= 0, let stream = fdopendir(copy) else {
            if copy >= 0 { Glibc.close(copy) }
            return
        }
        defer { closedir(stream) }
        while let entry = readdir(stream) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
            }
            guard name != ".", name != ".." else { continue }
            var kind: EntryKind
            switch entry.pointee.d_type {
            case UInt8(DT_DIR): kind = .folder
            case UInt8(DT_REG): kind = .file
            case UInt8(DT_UNKNOWN):
                var info = stat()
                let type = fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) == 0 ? info.st_mode & S_IFMT : 0
                kind = type == S_IFDIR ? .folder : type == S_IFREG ? .file : .other
            default: kind = .other
            }
            if !visit(name, kind) { return }
        }
    }

    /// Opens the folder `components` below the folder `self`, one
    /// component at a time and never through a symlink (`O_NOFOLLOW`
    /// each); with `making`, a missing one is made with that mode first.
    /// `self` stays open; the result is the caller's to close.
    public func walk(_ components: [String], making mode: mode_t? = nil) throws(SystemError) -> FileDescriptor {
        var current = FileDescriptor(rawValue: try Syscall.call("dup", "a folder to walk from") { dup(rawValue) })
        for component in components {
            do throws(SystemError) {
                if let mode, mkdirat(current.rawValue, component, mode) != 0, errno != EEXIST {
                    throw SystemError("mkdirat", errno: errno, context: component)
                }
                let next = try current.openAt(component, flags: O_RDONLY | O_DIRECTORY)
                current.close()
                current = next
            } catch {
                current.close()
                throw error
            }
        }
        return current
    }

    /// Opens the folder at `path` (absolute, or from the working
    /// directory), first making it and every missing parent with `mode`,
    /// as `mkdir -p` would. Symlinks on the way are followed: the path is
    /// one the user or the configuration gave, not a peer.
    public static func openFolder(_ path: String, making mode: mode_t) throws(SystemError) -> FileDescriptor {
        var built = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            built += "/" + component
            if mkdir(built, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", errno: errno, context: built) }
        }
        return FileDescriptor(rawValue: try Syscall.call("open", path) { open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC) })
    }

    /// `fstatat` of `name` in the folder `self`, not following a symlink.
    public func status(of name: String) throws(SystemError) -> stat {
        var info = stat()
        try Syscall.call("fstatat", name) { fstatat(rawValue, name, &info, AT_SYMLINK_NOFOLLOW) }
        return info
    }
}
