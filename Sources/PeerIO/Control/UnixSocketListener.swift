import Glibc
import FoundationEssentials

/// The control socket's listening end: a Unix stream socket at a path.
///
/// It refuses to steal the path from a live daemon, removes a stale socket
/// left by a crash, never removes a non-socket file, and sets the mode
/// explicitly (the umask must not decide who may talk to peerd).
package struct UnixSocketListener: Sendable {
    /// The listening descriptor, non-blocking.
    package let descriptor: FileDescriptor
    /// The path it is bound to.
    package let path: String
    /// Whether the socket came from systemd (which owns the path).
    package let activated: Bool

    /// Binds and listens at `path` with `mode`, creating the parent directory
    /// (0755) if needed.
    package init(path: String, mode: mode_t = 0o660, group: gid_t? = nil, backlog: Int32 = 64) throws(SystemError) {
        self.path = path
        activated = false
        try Self.prepareDirectory(of: path)
        try Self.clearStaleSocket(at: path)
        let fd = try Syscall.call("socket", "AF_UNIX") { socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0) }
        let descriptor = FileDescriptor(rawValue: fd)
        do {
            let address = try SocketAddress.unix(path)
            try SocketAddress.withSockaddr(address) { pointer, length throws(SystemError) in
                try Syscall.call("bind", path) { bind(fd, pointer, length) }
            }
            try Syscall.call("chmod", path) { chmod(path, mode) }
            // Members of the daemon's group connect through the group bits.
            if let group { try Syscall.call("chown", path) { chown(path, UInt32.max, group) } }
            try Syscall.call("listen", path) { listen(fd, backlog) }
        } catch {
            descriptor.close()
            throw error
        }
        self.descriptor = descriptor
    }

    /// Adopts a socket systemd bound and listens on (socket activation).
    /// Its path is the one the socket is bound to (`getsockname`), not the
    /// one configured: status and logs name the socket peerd was given.
    /// `path` is kept only when the kernel names none (an abstract socket).
    package init(activated descriptor: FileDescriptor, path: String) {
        self.descriptor = descriptor
        self.path = Self.boundPath(of: descriptor) ?? path
        activated = true
    }

    /// The filesystem path a Unix socket is bound to, if any.
    package static func boundPath(of descriptor: FileDescriptor) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let ok = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor.rawValue, $0, &length) }
        } == 0
        let pathBytes = Int(length) - MemoryLayout<sa_family_t>.size
        guard ok, address.sun_family == sa_family_t(AF_UNIX), pathBytes > 1 else { return nil }
        let bytes = withUnsafeBytes(of: address.sun_path) { Array($0.prefix(min(pathBytes, $0.count))) }
        guard bytes.first != 0 else { return nil }
        return String(decoding: bytes.prefix { $0 != 0 }, as: UTF8.self)
    }

    /// Accepts one client; nil when none is waiting.
    package func accept() throws(SystemError) -> FileDescriptor? {
        try descriptor.acceptConnection(context: path)
    }

    /// Closes the socket and removes its path (unless systemd owns it).
    package func close() {
        descriptor.close()
        if !activated { unlink(path) }
    }

    private static func prepareDirectory(of path: String) throws(SystemError) {
        guard let slash = path.lastIndex(of: "/"), slash != path.startIndex else { return }
        let directory = String(path[..<slash])
        var components: [Substring] = []
        for part in directory.split(separator: "/") {
            components.append(part)
            let prefix = (directory.hasPrefix("/") ? "/" : "") + components.joined(separator: "/")
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw SystemError("mkdir", errno: errno, context: prefix)
            }
        }
    }

    private static func clearStaleSocket(at path: String) throws(SystemError) {
        var info = stat()
        guard lstat(path, &info) == 0 else {
            if errno == ENOENT { return }
            throw SystemError("lstat", errno: errno, context: path)
        }
        guard (info.st_mode & S_IFMT) == S_IFSOCK else {
            throw SystemError("bind", errno: EEXIST, context: "\(path) exists and is not a socket; not removing it")
        }
        // A connect that succeeds means a live daemon owns the path.
        let probe = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard probe >= 0 else { throw SystemError("socket", errno: errno, context: "AF_UNIX") }
        defer { Glibc.close(probe) }
        let address = try SocketAddress.unix(path)
        let connected = SocketAddress.withSockaddr(address) { connect(probe, $0, $1) } == 0
        if connected {
            throw SystemError("bind", errno: EADDRINUSE, context: "\(path): another peerd is already listening there")
        }
        try Syscall.call("unlink", path) { unlink(path) }
    }
}
