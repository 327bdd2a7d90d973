import FoundationEssentials
import Glibc
import PeerSystem
import PeerTools
import PeerProtocol

/// What `peerctl doctor` reads from the system: files under /proc and
/// /sys, `getifaddrs`, a TCP connect, and a few tools (`nft`, `ip`,
/// `dbus-send`, `avahi-browse`), each with a timeout. Facts only; the
/// decisions are ``DoctorRules``'.
enum DoctorProbes {
    /// A file's text, or nil.
    static func read(_ path: String) -> String? { TextFile.read(path) }

    /// Whether `tool` is on PATH.
    static func has(_ tool: String) -> Bool {
        (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/sbin:/usr/bin:/sbin:/bin").split(separator: ":").contains { access("\($0)/\(tool)", X_OK) == 0 }
    }

    /// Runs a tool with a timeout; nil when it is not installed.
    static func run(_ argv: [String], timeout: Double = 5) -> Subprocess.Outcome? {
        guard has(argv[0]) else { return nil }
        return Subprocess.run(argv, timeout: timeout)
    }

    /// The pids of the processes in this network namespace, with their names.
    static func processesHere() -> [(pid: String, name: String)] {
        let ours = link("/proc/self/ns/net")
        guard let dir = opendir("/proc") else { return [] }
        defer { closedir(dir) }
        var found: [(String, String)] = []
        while let entry = readdir(dir) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard name.allSatisfy(\.isNumber), link("/proc/\(name)/ns/net") == ours,
                  let comm = read("/proc/\(name)/comm") else { continue }
            found.append((name, String(comm.prefix { $0 != "\n" })))
        }
        return found
    }

    /// The names of the processes here holding a socket bound to UDP
    /// `port`, and how many such sockets there are (a user who is not root
    /// sees the sockets but not every process that holds them).
    static func udpHolders(port: UInt16) -> (names: [String], sockets: Int) {
        let inodes = Set(["/proc/net/udp", "/proc/net/udp6"].flatMap { read($0).map { SocketTable.inodes(boundTo: port, in: $0) } ?? [] })
        guard !inodes.isEmpty else { return ([], 0) }
        var names: [String] = []
        for process in processesHere() {
            guard let dir = opendir("/proc/\(process.pid)/fd") else { continue }
            defer { closedir(dir) }
            while let entry = readdir(dir) {
                let fd = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
                let target = link("/proc/\(process.pid)/fd/\(fd)")
                if target.hasPrefix("socket:["), let inode = UInt64(target.dropFirst(8).dropLast()), inodes.contains(inode) {
                    names.append(process.name)
                    break
                }
            }
        }
        return (names, inodes.count)
    }

    /// The avahi-daemon.conf in use here: the `-f` of this namespace's
    /// avahi-daemon, else the default.
    static func avahiConfigPath() -> String {
        for process in processesHere() where process.name == "avahi-daemon" {
            guard let raw = read("/proc/\(process.pid)/cmdline") else { continue }
            let args = raw.split(separator: "\0").map(String.init)
            if let at = args.firstIndex(where: { $0 == "-f" || $0 == "--file" }), at + 1 < args.count { return args[at + 1] }
            if let inline = args.first(where: { $0.hasPrefix("--file=") }) { return String(inline.dropFirst(7)) }
        }
        return "/etc/avahi/avahi-daemon.conf"
    }

    /// Every interface but loopback: its flags and addresses.
    static func interfaces() -> [(name: String, up: Bool, multicast: Bool, addresses: [String])] {
        var order: [String] = []
        var facts: [String: (up: Bool, multicast: Bool, addresses: [String])] = [:]
        for row in HostAddresses.read() where row.flags & Int32(IFF_LOOPBACK) == 0 {
            if facts[row.interface] == nil {
                order.append(row.interface)
                facts[row.interface] = (row.flags & Int32(IFF_UP) != 0, row.flags & Int32(IFF_MULTICAST) != 0, [])
            }
            if let address = row.address { facts[row.interface]?.addresses.append(address) }
        }
        return order.map { ($0, facts[$0]!.up, facts[$0]!.multicast, facts[$0]!.addresses) }
    }

    /// A TCP connect to `endpoint`, given `seconds`.
    static func connect(to endpoint: Endpoint, seconds: Int32 = 2) -> DoctorPeerRules.PortProbe {
        let v4 = endpoint.family == .ipv4
        let fd = socket(v4 ? AF_INET : AF_INET6, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue) | Int32(SOCK_NONBLOCK.rawValue), 0)
        guard fd >= 0 else { return .failed(String(cString: strerror(errno))) }
        defer { close(fd) }
        let started: Int32
        do { started = try SocketAddress.withSockaddr(of: endpoint) { Glibc.connect(fd, $0, $1) } } catch { return .failed("\(error)") }
        if started != 0 && errno != EINPROGRESS { return errno == ECONNREFUSED ? .refused : .failed(String(cString: strerror(errno))) }
        var wait = pollfd(fd: fd, events: Int16(POLLOUT), revents: 0)
        guard poll(&wait, 1, seconds * 1000) == 1 else { return .timedOut }
        var code: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        getsockopt(fd, SOL_SOCKET, SO_ERROR, &code, &length)
        switch code {
        case 0: return .open
        case ECONNREFUSED: return .refused
        case ETIMEDOUT, EHOSTUNREACH: return code == ETIMEDOUT ? .timedOut : .failed(String(cString: strerror(code)))
        default: return .failed(String(cString: strerror(code)))
        }
    }

    private static func link(_ path: String) -> String {
        var buffer = [CChar](repeating: 0, count: 256)
        let n = readlink(path, &buffer, buffer.count - 1)
        guard n > 0 else { return "" }
        return String(decoding: buffer.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
