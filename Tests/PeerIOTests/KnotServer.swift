import FoundationEssentials
import Glibc
import XCTest

/// Why the test server did not start (knot is in make deps: a missing
/// knotd fails the test rather than skipping it).
struct KnotError: Error { let why: String; init(_ why: String) { self.why = why } }

/// A Knot DNS server on loopback for the DNS client's tests (make deps
/// installs knot): one dynamic zone, `peers.example.`, that takes updates
/// signed with one TSIG key. Started in a temporary folder on a free port;
/// stopped (and its folder removed) by ``stop()``.
final class KnotServer {
    /// The key's name.
    static let keyName = "peerd-update"
    /// The key's secret, base64 (32 bytes).
    static let secret = "g1jVxuHNaFj3uv88uPxr8wodidgFCZKD/FCHkTUDaos="
    let port: UInt16
    let folder: String
    private let pid: pid_t

    init() throws {
        guard access("/usr/sbin/knotd", X_OK) == 0 else { throw KnotError("knotd is not installed (make deps)") }
        var template = Array("/tmp/peerd-knot.XXXXXX".utf8CString)
        guard let made = mkdtemp(&template) else { throw KnotError("mkdtemp failed") }
        folder = String(cString: made)
        port = UInt16.random(in: 20_000...40_000)
        let config = """
        server:
            listen: 127.0.0.1@\(port)
            rundir: \(folder)
        database:
            storage: \(folder)/db
        log:
          - target: stderr
            any: info
        key:
          - id: \(Self.keyName)
            algorithm: hmac-sha256
            secret: \(Self.secret)
        acl:
          - id: update
            key: \(Self.keyName)
            action: update
        zone:
          - domain: peers.example.
            storage: \(folder)
            file: peers.example.zone
            acl: update
        """
        let zone = """
        $ORIGIN peers.example.
        $TTL 60
        @ SOA ns hostmaster 1 60 60 3600 30
        @ NS ns
        ns A 127.0.0.1

        """
        // Knot keeps its journal there, and fails every update without it.
        mkdir(folder + "/db", 0o700)
        try Data(config.utf8).write(to: URL(fileURLWithPath: folder + "/knot.conf"))
        try Data(zone.utf8).write(to: URL(fileURLWithPath: folder + "/peers.example.zone"))
        var child: pid_t = 0
        let args = ["/usr/sbin/knotd", "-c", folder + "/knot.conf"]
        var argv = args.map { strdup($0) } + [nil]
        defer { for arg in argv { free(arg) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        // Not the test's own output: swift test waits for every holder of it.
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, folder + "/knot.log", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        defer { posix_spawn_file_actions_destroy(&actions) }
        guard posix_spawn(&child, args[0], &actions, nil, &argv, environ) == 0 else { throw KnotError("cannot start knotd") }
        pid = child
        // Ready when its log says the server started.
        for _ in 0..<100 {
            if let log = try? String(contentsOfFile: folder + "/knot.log", encoding: .utf8), log.contains("server started") { return }
            usleep(50_000)
        }
        stop()
        throw KnotError("knotd did not start")
    }

    /// Stops answering (SIGSTOP) or answers again (SIGCONT): a server that
    /// hangs, as one under load or behind a lost route does.
    /// Waits until the kernel says so (a signal is delivered when the
    /// process is next scheduled: a query sent at once could be answered).
    func pause(_ paused: Bool) {
        kill(pid, paused ? SIGSTOP : SIGCONT)
        for _ in 0..<200 {
            let stat = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)) ?? ""
            // The state is the word after the command's closing parenthesis.
            let state = stat.split(separator: ")").last?.split(separator: " ").first.map(String.init)
            if (state == "T") == paused { return }
            usleep(5_000)
        }
    }

    func stop() {
        kill(pid, SIGCONT)
        kill(pid, SIGTERM)
        var status: Int32 = 0
        waitpid(pid, &status, 0)
        if getenv("KNOT_KEEP") == nil { _ = try? FileManager.default.removeItem(atPath: folder) }
    }
}
