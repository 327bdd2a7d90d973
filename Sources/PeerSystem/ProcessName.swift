import Glibc

/// The process's own path and name, as the kernel keeps them (issue 41).
///
/// The kernel names a process after the last part of the path it was
/// exec'd by (at most 15 bytes, in `/proc/PID/comm`): what `ps -e`,
/// `pgrep`, `pidof`, `killall`, `top` and journald's `_COMM` match on.
public enum ProcessName {
    /// The binary's resolved path (`readlink("/proc/self/exe")`), nil when
    /// it cannot be read. A binary deleted or replaced since it started
    /// reads as its old path with " (deleted)" after it.
    public static func executablePath() -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// The process's name (`/proc/self/comm`), nil when it cannot be read.
    public static func current() -> String? { readComm("/proc/self/comm") }

    /// Names the process (`/proc/self/comm`, the main thread's name, which
    /// threads made after it take too); longer than 15 bytes is cut.
    /// Returns whether the kernel took it.
    @discardableResult
    public static func set(_ name: String) -> Bool { writeComm("/proc/self/comm", name) }

    /// Reads a `comm` file (a process's or a thread's name), nil when it
    /// cannot be read.
    static func readComm(_ path: String) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 64)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        return String(decoding: buffer[0..<count], as: UTF8.self).trimmingSuffix("\n")
    }

    /// Writes a `comm` file, cut to the kernel's 15 bytes: whether the
    /// kernel took it.
    static func writeComm(_ path: String, _ name: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        return write(fd, bytes, bytes.count) == bytes.count
    }
}

private extension String {
    func trimmingSuffix(_ suffix: String) -> String {
        hasSuffix(suffix) ? String(dropLast(suffix.count)) : self
    }
}
