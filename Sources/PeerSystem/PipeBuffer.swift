import Glibc

/// A pipe's buffer size (`F_GETPIPE_SZ`, `F_SETPIPE_SZ`: Linux's, behind
/// `_GNU_SOURCE`, so the Glibc module does not export them). Bulk bytes
/// through a default 64 KiB pipe wake the other end every 64 KiB.
public enum PipeBuffer {
    /// fcntl(2)'s `F_SETPIPE_SZ` (linux/fcntl.h: F_LINUX_SPECIFIC_BASE + 7).
    static let setSize: Int32 = 1031
    /// fcntl(2)'s `F_GETPIPE_SZ` (F_LINUX_SPECIFIC_BASE + 8).
    static let getSize: Int32 = 1032

    /// Grows the buffer of the pipe `fd` is an end of to `size` bytes,
    /// never shrinking it. Returns whether it now holds at least `size`.
    /// Not a pipe, or a refusal (above `/proc/sys/fs/pipe-max-size`
    /// without privilege, or past the user's `pipe-user-pages-soft`),
    /// leaves it as it was.
    @discardableResult
    public static func widen(_ fd: Int32, to size: Int32) -> Bool {
        let current = fcntl(fd, getSize)
        guard current >= 0 else { return false }
        guard current < size else { return true }
        return fcntl(fd, setSize, size) >= size
    }
}
