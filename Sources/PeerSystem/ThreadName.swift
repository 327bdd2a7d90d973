import Glibc

/// The calling thread's name (`/proc/PID/task/TID/comm`): what `top -H`,
/// `ps -T`, gdb and perf show for it. peerd names each thread it starts
/// itself, so that a look at the process says which is which, and a lab
/// test pins the set (docs/architecture.md, "Threads"). Through
/// `/proc/thread-self/comm`: glibc's `pthread_setname_np` is a GNU
/// extension the Glibc module does not export.
public enum ThreadName {
    /// Names the calling thread; longer than 15 bytes is cut. Returns
    /// whether the kernel took it.
    @discardableResult
    public static func set(_ name: String) -> Bool {
        let fd = open("/proc/thread-self/comm", O_WRONLY | O_CLOEXEC)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        let bytes = Array(name.utf8.prefix(15))
        return write(fd, bytes, bytes.count) == bytes.count
    }

    /// The calling thread's name, nil when it cannot be read.
    public static func current() -> String? {
        let fd = open("/proc/thread-self/comm", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var buffer = [UInt8](repeating: 0, count: 32)
        let count = read(fd, &buffer, buffer.count)
        guard count > 0 else { return nil }
        var bytes = buffer[0..<count]
        if bytes.last == 0x0A { bytes = bytes.dropLast() }
        return String(decoding: bytes, as: UTF8.self)
    }
}
