import Glibc

/// The probes of plain TCP and of other programs: what peerd is measured
/// next to (issue 13).
extension Probes {
    // MARK: Plain TCP

    /// `tcp-echo-server`: accepts connections on `port` for ever, echoing,
    /// one connection at a time (the kernel completes connects meanwhile).
    static func tcpEchoServer(port: UInt16) throws {
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var one: Int32 = 1
        setsockopt(listener, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        let bound = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard bound == 0, listen(listener, 64) == 0 else { throw ProbeError("bind/listen on \(port): \(String(cString: strerror(errno)))") }
        say("ready")
        while true {
            let connection = accept(listener, nil, nil)
            guard connection >= 0 else { continue }
            setsockopt(connection, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let n = buffer.withUnsafeMutableBytes { read(connection, $0.baseAddress, $0.count) }
                guard n > 0, writeAll(connection, buffer, count: n) else { break }
            }
            close(connection)
        }
    }

    /// A TCP connection to `host`:`port` with `TCP_NODELAY`, or nil.
    static func connect(to host: String, port: UInt16) -> Int32? {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        guard inet_pton(AF_INET, host, &address.sin_addr) == 1 else { return nil }
        let connected = withUnsafePointer(to: &address) { $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.connect(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) } }
        guard connected == 0 else { close(fd); return nil }
        var one: Int32 = 1
        setsockopt(fd, Int32(IPPROTO_TCP), TCP_NODELAY, &one, socklen_t(MemoryLayout<Int32>.size))
        return fd
    }

    /// `tcp-ping`: `count` round trips of `size` bytes over one TCP connection.
    static func tcpPing(host: String, port: UInt16, count: Int, size: Int) throws {
        guard let fd = connect(to: host, port: port) else { throw ProbeError("cannot connect to \(host):\(port)") }
        defer { close(fd) }
        let message = [UInt8](repeating: 0x44, count: size)
        var buffer = [UInt8](repeating: 0, count: size)
        var times: [Double] = []
        for _ in 0..<count {
            let start = monotonic()
            guard writeAll(fd, message, count: size), readExactly(fd, &buffer, size) else { break }
            times.append((monotonic() - start) * 1000)
        }
        sayQuantiles(times)
    }

    /// `tcp-connect`: `count` connects; prints each one's milliseconds.
    static func tcpConnect(host: String, port: UInt16, count: Int) throws {
        var times: [Double] = []
        for _ in 0..<count {
            let start = monotonic()
            guard let fd = connect(to: host, port: port) else { throw ProbeError("cannot connect to \(host):\(port)") }
            times.append((monotonic() - start) * 1000)
            close(fd)
        }
        say("times=" + times.map { String($0) }.joined(separator: ","))
    }

    /// `wait-line`: runs `argv`, says `ready`, and prints when (wall clock)
    /// its output first has a line containing `text`; then stops it.
    static func waitLine(text: String, argv: [String]) throws {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { throw ProbeError("pipe: \(String(cString: strerror(errno)))") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        guard posix_spawnp(&pid, argv[0], &actions, nil, &cArgs, environ) == 0 else { throw ProbeError("cannot run \(argv[0])") }
        close(fds[1])
        say("ready")
        var pending: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        defer {
            kill(pid, SIGTERM)
            var status: Int32 = 0
            waitpid(pid, &status, 0)
            close(fds[0])
        }
        while true {
            let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { throw ProbeError("\(argv[0]) ended before a line with '\(text)'") }
            pending += buffer[0..<count]
            while let newline = pending.firstIndex(of: 10) {
                let line = String(decoding: pending[..<newline], as: UTF8.self)
                pending.removeSubrange(...newline)
                if line.contains(text) { return say("found=\(wallClock())") }
            }
        }
    }
}
