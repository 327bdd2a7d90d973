import Glibc

/// Small text files read whole, to their end rather than to a size `stat`
/// gives (files under /proc and /sys say 0): what `peerctl doctor` reads
/// of the system and `peerbench` of its lab. Bounded by `limit`.
public enum TextFile {
    /// `path`'s text (invalid UTF-8 repaired), at most `limit` bytes of
    /// it; nil when it cannot be opened.
    public static func read(_ path: String, limit: Int = 4 << 20) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while bytes.count < limit {
            let n = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, min($0.count, limit - bytes.count)) }
            if n < 0, errno == EINTR { continue }
            guard n > 0 else { break }
            bytes += chunk[0..<n]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
