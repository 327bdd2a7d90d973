import Glibc

/// Which descriptors never make a reader or writer wait, so they are read
/// and written directly rather than watched: a regular file, and the
/// kernel's memory devices (character major 1: `/dev/null`, `/dev/zero`,
/// `/dev/full`, `/dev/urandom`), which epoll refuses (`EPERM`). Before
/// this, `peerctl pipe … >/dev/null` copied every byte through a pipe and
/// a thread of its own (issue 44: the pipe figure's receiver).
public enum AlwaysReady {
    /// The memory devices' major number (Documentation/admin-guide/devices.txt).
    static let memoryDevices: UInt64 = 1

    /// Whether `info` describes a descriptor that is always ready.
    public static func check(_ info: stat) -> Bool {
        switch info.st_mode & S_IFMT {
        case S_IFREG: return true
        case S_IFCHR: return major(UInt64(info.st_rdev)) == memoryDevices
        default: return false
        }
    }

    /// Whether descriptor `fd` is always ready (false when it cannot be asked).
    public static func check(descriptor fd: Int32) -> Bool {
        var info = stat()
        return fstat(fd, &info) == 0 && check(info)
    }

    /// A device number's major part, as glibc's `major()` lays it out.
    static func major(_ device: UInt64) -> UInt64 {
        ((device >> 8) & 0xfff) | ((device >> 32) & ~UInt64(0xfff))
    }
}
