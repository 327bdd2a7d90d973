import Glibc
import PeerSystem

/// The lab peerbench measures in: `Tests/bench/bench_lab.sh` builds it
/// (two hosts, peerd paired on both, sshd, iperf3 and a TCP echo server on
/// host 2) and holds it until it is told to stop. This runs commands on
/// its hosts.
final class BenchLab {
    private let driver: pid_t
    private let driverOutput: String
    /// What the driver printed: NS1, ADDR2, SOCK1, PEERD2, LAB_DIR, …
    let values: [String: String]
    /// The folder with peerd, peerctl and peerbench.
    let bin: String
    /// Whether iperf3, sshd and scp are there.
    var hasTools: Bool { values["TOOLS"] == "yes" }

    /// Builds the lab with the programs in `bin`; `root` is the source tree.
    /// `pin` puts each peerd on a core of its own (`taskset`).
    init(root: String, bin: String, pin: Bool = false) throws {
        self.bin = bin
        driverOutput = "/tmp/peerbench-lab.\(getpid()).out"
        guard let pid = Subprocess.start(["bash", root + "/Tests/bench/bench_lab.sh", bin] + (pin ? ["--pin"] : []), outputPath: driverOutput,
                                         errorPath: driverOutput + ".log") else {
            throw ProbeError("cannot start Tests/bench/bench_lab.sh")
        }
        driver = pid
        let deadline = Probes.monotonic() + 120
        while true {
            let text = Self.read(driverOutput)
            if text.split(separator: "\n").contains("ready") {
                var values: [String: String] = [:]
                for line in text.split(separator: "\n") {
                    let parts = line.split(separator: "=", maxSplits: 1)
                    if parts.count == 2 { values[String(parts[0])] = String(parts[1]) }
                }
                self.values = values
                return
            }
            var status: Int32 = 0
            if waitpid(pid, &status, WNOHANG) == pid || Probes.monotonic() > deadline {
                throw ProbeError("the lab did not come up; see \(driverOutput).log")
            }
            usleep(100_000)
        }
    }

    /// A value the driver printed.
    subscript(_ key: String) -> String { values[key] ?? "" }

    /// `argv` on host `host` (1 or 2), with that host's system bus, to its end.
    func run(_ host: Int, _ argv: [String]) -> Subprocess.Outcome {
        Subprocess.run(wrap(host, argv), errorPath: self["LAB_DIR"] + "/bench-stderr.log")
    }

    /// `argv` on host `host` in the background, stdout to `output`.
    func start(_ host: Int, _ argv: [String], output: String) -> pid_t? {
        Subprocess.start(wrap(host, argv), outputPath: output, errorPath: self["LAB_DIR"] + "/bench-stderr.log")
    }

    /// A peerbench probe on host `host`.
    func probe(_ host: Int, _ arguments: [String]) -> Subprocess.Outcome {
        run(host, [bin + "/peerbench", "probe"] + arguments)
    }

    private func wrap(_ host: Int, _ argv: [String]) -> [String] {
        ["ip", "netns", "exec", self["NS\(host)"], "env", "DBUS_SYSTEM_BUS_ADDRESS=unix:path=" + self["BUS\(host)"]] + argv
    }

    /// Waits until `path` has a line `ready` (a probe started in the background).
    func waitReady(_ path: String, seconds: Double = 10) -> Bool {
        let deadline = Probes.monotonic() + seconds
        while Probes.monotonic() < deadline {
            if Self.read(path).split(separator: "\n").contains("ready") { return true }
            usleep(2_000)
        }
        return false
    }

    /// Brings the lab down.
    func stop() {
        kill(driver, SIGTERM)
        _ = Subprocess.wait(driver)
        unlink(driverOutput)
        unlink(driverOutput + ".log")
    }

    /// A file's text ("" when unreadable).
    static func read(_ path: String) -> String { TextFile.read(path, limit: 64 << 20) ?? "" }

    /// `key=value` words of one line.
    static func words(_ line: String) -> [String: String] {
        var out: [String: String] = [:]
        for word in line.split(whereSeparator: { $0 == " " || $0 == "\n" }) {
            let parts = word.split(separator: "=", maxSplits: 1)
            if parts.count == 2 { out[String(parts[0])] = String(parts[1]) }
        }
        return out
    }
}
