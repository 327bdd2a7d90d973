import Glibc

/// Page-aligned memory of its own mapping, for writes with `O_DIRECT`
/// (issue 44), which need their memory aligned as well as their offset.
/// `malloc` guarantees 16 bytes; `mmap` gives whole pages, and `munmap`
/// gives them back to the system the moment the buffer goes, so a
/// transfer's stage never stays in the daemon's heap after it.
public final class AlignedBuffer {
    /// The memory.
    public let bytes: UnsafeMutableRawBufferPointer

    /// Maps `count` bytes (rounded up to whole pages), zeroed on first touch.
    public init(count: Int) throws(SystemError) {
        let page = Int(sysconf(Int32(_SC_PAGESIZE)))
        let size = (max(count, 1) + page - 1) / page * page
        guard let base = mmap(nil, size, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
              base != MAP_FAILED else {
            throw SystemError("mmap", errno: errno, context: "\(size) bytes for direct writes")
        }
        bytes = UnsafeMutableRawBufferPointer(start: base, count: size)
    }

    deinit {
        munmap(bytes.baseAddress, bytes.count)
    }
}
