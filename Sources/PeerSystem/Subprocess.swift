import Glibc

/// Runs other programs: `posix_spawn`, stdout into a pipe (or a file),
/// and the exit status. peerbench reaches the lab's namespaces this way
/// (`ip netns exec …`); `peerctl doctor` asks `nft`, `ip` and
/// `avahi-browse`.
public enum Subprocess {
    /// What a finished program left.
    public struct Outcome: Sendable {
        /// Its exit status (128 + signal when killed; 127 when it could not start).
        public var status: Int32
        /// Everything it wrote to stdout.
        public var output: String
    }

    /// Runs `argv` to its end; its stderr goes to `errorPath`. With
    /// `timeout`, a program still running then is killed (SIGKILL) and
    /// what it wrote so far is returned.
    public static func run(_ argv: [String], errorPath: String = "/dev/null", timeout: Double? = nil) -> Outcome {
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return Outcome(status: 127, output: "") }
        guard let pid = spawn(argv, stdout: fds[1], errorPath: errorPath) else {
            close(fds[0]); close(fds[1])
            return Outcome(status: 127, output: "")
        }
        close(fds[1])
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        let deadline = timeout.map { ContinuousClock.now + .milliseconds(Int($0 * 1000)) }
        while true {
            if let deadline {
                var wait = pollfd(fd: fds[0], events: Int16(POLLIN), revents: 0)
                if poll(&wait, 1, Syscall.pollTimeout(until: deadline)) == 0 {
                    kill(pid, SIGKILL)
                    break
                }
            }
            let count = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[0..<count]
        }
        close(fds[0])
        return Outcome(status: wait(pid), output: String(decoding: bytes, as: UTF8.self))
    }

    /// Starts `argv` in the background, stdout to `outputPath`; its pid.
    public static func start(_ argv: [String], outputPath: String, errorPath: String = "/dev/null") -> pid_t? {
        let fd = open(outputPath, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        return spawn(argv, stdout: fd, errorPath: errorPath)
    }

    /// Waits for `pid`; its exit status (128 + signal when killed).
    public static func wait(_ pid: pid_t) -> Int32 {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 { if errno != EINTR { return 127 } }
        if status & 0x7F == 0 { return (status >> 8) & 0xFF }
        return 128 + (status & 0x7F)
    }

    private static func spawn(_ argv: [String], stdout: Int32, errorPath: String) -> pid_t? {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_adddup2(&actions, stdout, 1)
        posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        var cArgs = argv.map { strdup($0) } + [nil]
        defer { cArgs.forEach { free($0) } }
        var pid: pid_t = 0
        let result = posix_spawnp(&pid, argv[0], &actions, nil, &cArgs, environ)
        return result == 0 ? pid : nil
    }
}
