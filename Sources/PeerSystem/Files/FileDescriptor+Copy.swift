import CFiles
import Glibc

extension FileDescriptor {
    /// Copies all of the file `self` (from its start) into `target` (from
    /// its start), then cuts `target` to that size: in the kernel
    /// (`copy_file_range`, a reflink where the file system can), or, where
    /// the kernel cannot between these two files, through `buffer`-sized
    /// reads and writes. Returns the bytes copied.
    public func copyAll(to target: FileDescriptor, buffer: Int = 1 << 20) throws(SystemError) -> Int64 {
        var copied: Int64 = 0
        var inKernel = true
        var chunk: [UInt8] = []
        while true {
            if inKernel {
                var from = copied, to = copied
                let count = peerd_copy_file_range(rawValue, &from, target.rawValue, &to, 8 << 20)
                if count > 0 { copied += Int64(count); continue }
                if count == 0 { break }
                let code = errno
                if code == EINTR { continue }
                // Not between these two (another file system, an old kernel): copy by hand.
                guard copied == 0, [EXDEV, EINVAL, ENOSYS, EOPNOTSUPP, EBADF].contains(code) else {
                    throw SystemError("copy_file_range", errno: code, context: "at byte \(copied)")
                }
                inKernel = false
            }
            if chunk.isEmpty { chunk = [UInt8](repeating: 0, count: buffer) }
            let offset = copied
            let count = try chunk.withUnsafeMutableBytes { raw in
                Result { () throws(SystemError) in try read(into: raw, at: offset) }
            }.get()
            if count == 0 { break }
            try chunk.withUnsafeBytes { raw in
                Result { () throws(SystemError) in try target.write(UnsafeRawBufferPointer(rebasing: raw[..<count]), at: offset) }
            }.get()
            copied += Int64(count)
        }
        try target.truncate(copied)
        return copied
    }
}
