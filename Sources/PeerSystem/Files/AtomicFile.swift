import Glibc

/// Small files written crash-safely: a temporary file in the same directory,
/// `fsync`, `rename` over the target, then `fsync` of the directory, so after
/// a crash the path holds either the old contents or the new, never a mix.
package enum AtomicFile {
    /// Reads a whole file; nil when it does not exist. At most `limit` bytes.
    /// Only a regular file is read: a FIFO, device or directory at `path`
    /// is an error at once (opened non-blocking, so a FIFO cannot hang us).
    package static func read(_ path: String, limit: Int = 16 << 20) throws(SystemError) -> [UInt8]? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK)
        if fd < 0 {
            if errno == ENOENT { return nil }
            throw SystemError("open", errno: errno, context: path)
        }
        defer { close(fd) }
        var info = stat()
        try Syscall.call("fstat", path) { fstat(fd, &info) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw SystemError("open", errno: EINVAL, context: "\(path) is not a regular file")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while bytes.count <= limit {
            let n = try Syscall.call("read", path) { chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) } }
            if n == 0 { break }
            bytes += chunk[0..<n]
        }
        guard bytes.count <= limit else { throw SystemError("read", errno: EFBIG, context: "\(path) is over \(limit) bytes") }
        return bytes
    }

    /// Replaces `path` with `contents` (mode `mode`) crash-safely.
    package static func write(_ path: String, contents: [UInt8], mode: mode_t = 0o600) throws(SystemError) {
        let temporary = "\(path).tmp.\(getpid())"
        unlink(temporary)
        let fd = try Syscall.call("open", temporary) { open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode) }
        let file = FileDescriptor(rawValue: fd)
        do {
            try file.writeAll(contents, context: temporary)
            try Syscall.call("fsync", temporary) { fsync(fd) }
        } catch {
            file.close()
            unlink(temporary)
            throw error
        }
        file.close()
        do {
            try Syscall.call("rename", path) { rename(temporary, path) }
        } catch {
            unlink(temporary)
            throw error
        }
        try syncDirectory(of: path)
    }

    /// Moves `path` aside to `path.<suffix>`, crash-safely; returns the new path.
    package static func moveAside(_ path: String, suffix: String) throws(SystemError) -> String {
        let target = "\(path).\(suffix)"
        try Syscall.call("rename", path) { rename(path, target) }
        try syncDirectory(of: path)
        return target
    }

    /// Creates `directory` and its parents with `mode` where missing.
    package static func makeDirectories(_ directory: String, mode: mode_t = 0o700) throws(SystemError) {
        var path = directory.hasPrefix("/") ? "" : "."
        for part in directory.split(separator: "/") {
            path += "/" + part
            if mkdir(path, mode) != 0 && errno != EEXIST { throw SystemError("mkdir", errno: errno, context: path) }
        }
    }

    private static func syncDirectory(of path: String) throws(SystemError) {
        let directory = path.lastIndex(of: "/").map { String(path[..<$0]) } ?? "."
        let name = directory.isEmpty ? "/" : directory
        let fd = try Syscall.call("open", name) { open(name, O_RDONLY | O_DIRECTORY | O_CLOEXEC) }
        defer { close(fd) }
        try Syscall.call("fsync", name) { fsync(fd) }
    }
}
