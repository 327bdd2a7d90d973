import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerTools
import PeerProtocol

/// The idle figures, and those with many peers (issue 13).
extension Bench {
    // MARK: Idle, and many peers

    /// Idle memory, CPU and wake-ups of peerd and avahi-daemon on host 2,
    /// side by side over the same windows.
    func idle(_ progress: (String) -> Void) {
        let peerd = peerd2, avahi = avahiPID(2), sender = pid_t(lab["PEERD1"]) ?? 0
        let window: UInt32 = 12
        for run in 1...runs {
            progress("idle: \(window) s, run \(run) of \(runs)")
            for (name, pid) in [("peerd", peerd), ("avahi-daemon", avahi), ("peerd on host 1", sender)] {
                if let memory = ProcessStats.memory(pid) {
                    note("memory idle, resident", name, "MB", memory.resident / 1e6)
                    note("memory idle, private", name, "MB", memory.private / 1e6)
                }
            }
            let watched = [("peerd", peerd), ("avahi-daemon", avahi), ("peerd on host 1", sender)]
            let before = watched.map { (ProcessStats.cpuSeconds($0.1), ProcessStats.contextSwitches($0.1)) }
            sleep(window)
            for (index, (name, pid)) in watched.enumerated() {
                if let cpu = ProcessStats.cpuSeconds(pid), let was = before[index].0 {
                    note("idle CPU", name, "%", (cpu - was) / Double(window) * 100)
                }
                note("idle wake-ups", name, "/s", ProcessStats.switchesBetween(before[index].1, ProcessStats.contextSwitches(pid)) / Double(window))
            }
        }
    }

    /// avahi-daemon's own pid: the driver's is `unshare`'s, which execs a shell that execs it.
    func avahiPID(_ host: Int) -> pid_t {
        let outcome = Subprocess.run(["ip", "netns", "pids", lab["NS\(host)"]])
        for word in outcome.output.split(separator: "\n") {
            guard let pid = pid_t(word) else { continue }
            if BenchLab.read("/proc/\(pid)/comm").hasPrefix("avahi-daemon") { return pid }
        }
        return pid_t(lab["AVAHI\(host)"]) ?? 0
    }

    /// `peerctl peers --json` against `avahi-browse -c -t -r -p` with 200
    /// more services published on host 2.
    func peers(_ progress: (String) -> Void) -> [BenchRow] {
        progress("peers: publishing 200 services on host 2")
        let log = directory + "/publish.out"
        guard let publisher = lab.start(2, ["/usr/bin/python3", root + "/Tests/lab/publish-many.py", "200", "_peerd._tcp"], output: log) else { return [] }
        defer {
            kill(publisher, SIGTERM)
            _ = Subprocess.wait(publisher)
        }
        let deadline = Probes.monotonic() + 60
        while Probes.monotonic() < deadline {
            if peerCount() >= 201 { break }
            usleep(200_000)
        }
        // Ten sessions more: ten peerd on host 2 that accept anyone.
        progress("peers: ten more peerd on host 2, each in a session with host 1")
        for number in 1...10 {
            _ = lab.start(2, [bin + "/peerd", "--name", "extra\(number)", "--state-dir", directory + "/x\(number)", "--socket", directory + "/x\(number).sock",
                              "--log-level", "warning", "--auto-connect", "no", "--auto-accept", "all"], output: directory + "/x\(number).log")
        }
        var sessions = 0
        for number in 1...10 {
            let waitUntil = Probes.monotonic() + 20
            while Probes.monotonic() < waitUntil,
                  lab.run(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "invite", "extra\(number)", "--wait", "--timeout", "10"]).status != 0 {
                usleep(200_000)
            }
            if lab.run(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "--json", "peer", "extra\(number)"]).output.contains("\"state\":\"connected\"") { sessions += 1 }
        }
        // One reading a second, a reading per run.
        for run in 1...runs {
            if run > 1 { sleep(1) }
            for (name, pid) in [("peerd", pid_t(lab["PEERD1"]) ?? 0), ("avahi-daemon on the same host", avahiPID(1))] {
                guard let memory = ProcessStats.memory(pid) else { continue }
                note("memory with 200 peers and \(sessions) sessions, resident", name, "MB", memory.resident / 1e6)
                note("memory with 200 peers and \(sessions) sessions, private", name, "MB", memory.private / 1e6)
            }
        }
        let listed = peerCount()
        let comparison = Comparison(name: "listing \(listed) peers", unit: "ms", variants: [
            ("peerctl peers --json", { self.timed(1, [self.bin + "/peerctl", "--socket", self.lab["SOCK1"], "--json", "peers"]) }),
            ("avahi-browse -c -t -r -p", { self.timed(1, ["avahi-browse", "-c", "-t", "-r", "-p", "_peerd._tcp"]) }),
        ])
        var values: [String: [Double]] = [:]
        for step in BenchSchedule.steps([(comparison.name, comparison.variants.map(\.name))], runs: runs) {
            progress("\(step.comparison): \(step.variant), run \(step.run) of \(runs)")
            if let value = comparison.variants.first(where: { $0.name == step.variant })?.measure() { values[step.variant, default: []].append(value) }
        }
        return comparison.variants.map { BenchRow(comparison: comparison.name, variant: $0.name, unit: comparison.unit, summary: BenchSummary(values[$0.name] ?? [])) }
    }

    /// The rows host 1 lists.
    private func peerCount() -> Int {
        let output = lab.run(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "--json", "peers"]).output
        return (try? JSONLines.decode(PeersResult.self, from: Array(output.utf8)))?.peers.count ?? 0
    }

    private func timed(_ host: Int, _ argv: [String]) -> Double? {
        let start = Probes.monotonic()
        guard lab.run(host, argv).status == 0 else { return nil }
        return (Probes.monotonic() - start) * 1000
    }
}
