import Glibc
import PeerCore

/// Reads `--dns-update-key` at start (issue 46): the file must be a
/// regular file that only its owner may read or write (mode 0600 or
/// stricter), since the key lets anyone who holds it publish into the zone.
package enum TSIGKeyLoader {
    /// Why the key cannot be used, naming the file.
    package struct Refusal: Error, Equatable, CustomStringConvertible {
        /// The words.
        package var description: String
    }

    /// The key in the file at `path`, or why it cannot be used.
    package static func load(_ path: String) -> Result<TSIGKey, Refusal> {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return .failure(Refusal(description: "\(path): \(String(cString: strerror(errno))) (open)")) }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0 else { return .failure(Refusal(description: "\(path): \(String(cString: strerror(errno))) (fstat)")) }
        guard info.st_mode & S_IFMT == S_IFREG else { return .failure(Refusal(description: "\(path): not a regular file")) }
        let mode = info.st_mode & 0o777
        guard mode & 0o077 == 0 else {
            return .failure(Refusal(description: "\(path): mode \(String(mode, radix: 8)) lets others read the key; make it 0600 (chmod 600 \(path))"))
        }
        var bytes = [UInt8](repeating: 0, count: TSIGKeyFile.maxBytes + 1)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress! + total, $0.count - total) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return .failure(Refusal(description: "\(path): \(String(cString: strerror(errno))) (read)")) }
            if count == 0 { break }
            total += count
        }
        guard let text = String(validating: bytes[..<total], as: UTF8.self) else { return .failure(Refusal(description: "\(path): not text")) }
        switch TSIGKeyFile.parse(text) {
        case .success(let key): return .success(key)
        case .failure(let refusal): return .failure(Refusal(description: "\(path): \(refusal)"))
        }
    }
}
