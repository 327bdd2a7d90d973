import FoundationEssentials
import Glibc
import PeerCore
import PeerSystem
import PeerTools
import PeerProtocol

/// The figures of issue 13, measured in one ``BenchLab``: each comparison's
/// variants take turns run after run (``BenchSchedule``), and every figure
/// is summarized over its runs (``BenchSummary``).
final class Bench {
    let lab: BenchLab
    let runs: Int
    let bulkMiB: Int
    let root: String
    let messages: Int
    /// Values noted on the side, by row (a transfer's memory peak is read
    /// while `send-file` runs): (comparison, variant, unit) → values.
    private var noted: [String: (comparison: String, variant: String, unit: String, values: [Double])] = [:]
    private var notedOrder: [String] = []
    let directory: String
    var bin: String { lab.bin }
    /// peerd on host 2 now (the discovery figure restarts it).
    var peerd2: pid_t
    /// The desktop's probe (Tests/bench/desktop_probe.py session), once a
    /// desktop figure started it, and whether it could.
    var desktop: pid_t?
    var desktopFailed = false

    /// Figures in `lab` (built from the tree at `root`), each over `runs`
    /// runs, with transfers of `bulkMiB` and `messages` per rate run.
    init(lab: BenchLab, root: String, runs: Int, bulkMiB: Int, messages: Int) {
        self.lab = lab
        self.root = root
        self.runs = runs
        self.bulkMiB = bulkMiB
        self.messages = messages
        directory = lab["LAB_DIR"]
        peerd2 = pid_t(lab["PEERD2"]) ?? 0
    }

    /// Every figure, or those whose name contains one of `only`.
    func run(only: [String], progress: (String) -> Void) -> [BenchRow] {
        var rows: [BenchRow] = []
        let wanted = { (name: String) in only.isEmpty || only.contains { name.contains($0) } }
        if wanted("idle") { idle(progress) }
        let comparisons = self.comparisons().filter { wanted($0.name) }
        var values: [String: [Double]] = [:]
        var failures: [String: Int] = [:]
        let steps = BenchSchedule.steps(comparisons.map { ($0.name, $0.variants.map(\.name)) }, runs: runs)
        for step in steps {
            guard let comparison = comparisons.first(where: { $0.name == step.comparison }),
                  let variant = comparison.variants.first(where: { $0.name == step.variant }) else { continue }
            progress("\(step.comparison): \(step.variant), run \(step.run) of \(runs)")
            let key = step.comparison + "\u{1}" + step.variant
            if let value = variant.measure() { values[key, default: []].append(value) } else { failures[key, default: 0] += 1 }
        }
        for comparison in comparisons {
            for variant in comparison.variants {
                let key = comparison.name + "\u{1}" + variant.name
                let failed = failures[key].map { "\($0) of \(runs) runs failed" }
                rows.append(BenchRow(comparison: comparison.name, variant: variant.name, unit: comparison.unit,
                                     summary: BenchSummary(values[key] ?? []), note: failed))
            }
        }
        if wanted("peers") { rows += peers(progress) }
        if wanted("wide-area") || wanted(Self.wideAreaName) { rows += wideArea(progress) }
        // The desktop's memory after its figures is a noted row too.
        stopDesktop()
        rows += notedOrder.compactMap { key in noted[key].map { BenchRow(comparison: $0.comparison, variant: $0.variant, unit: $0.unit, summary: BenchSummary($0.values)) } }
        return rows
    }

    func note(_ comparison: String, _ variant: String, _ unit: String, _ value: Double?) {
        guard let value else { return }
        let key = comparison + "\u{1}" + variant
        if noted[key] == nil {
            noted[key] = (comparison, variant, unit, [])
            notedOrder.append(key)
        }
        noted[key]?.values.append(value)
    }

    private func comparisons() -> [Comparison] {
        var list = [
            Comparison(name: "message rate, 100 B", unit: "msg/s", variants: [
                ("peerd channel", { self.messageRate() }),
                ("peerd JSON send and take", { self.messageRate(json: true) }),
                ("peerctl send --lines into peerctl recv", { self.peerctlRate() }),
                ("iperf3 -l 100 writes", { self.iperfRate(length: 100).map { $0 / 100 } }),
            ]),
            Comparison(name: "round trip, 100 B, median", unit: "ms", variants: [
                ("peerd channel", { self.roundTrip()?.median }),
                ("TCP echo", { self.tcpRoundTrip()?.median }),
            ]),
            Comparison(name: "round trip, 100 B, p99", unit: "ms", variants: [
                ("peerd channel", { self.roundTrip()?.p99 }),
                ("TCP echo", { self.tcpRoundTrip()?.p99 }),
            ]),
            Comparison(name: "session setup", unit: "ms", variants: [
                ("peerd invite to connected", { self.sessionSetup() }),
                ("TCP connect", { self.tcpConnect() }),
                ("ssh host true", { self.sshTrue() }),
            ]),
        ]
        list.append(Comparison(name: "discovery: peerd started on host 2 until host 1 lists it", unit: "ms", variants: [
            ("peerd", { self.discovery(avahi: false) }),
            ("avahi-browse -r, the same service", { self.discovery(avahi: true) }),
        ]))
        // The primitives (issue 25): each library next to peerd's path to it.
        list += Primitives.comparisons()
        // The datagram path (issue 26), next to raw UDP.
        list += datagramComparisons()
        if lab.hasTools {
            list.append(Comparison(name: "bulk, \(bulkMiB) MiB", unit: "MiB/s", variants: [
                ("peerd send-file", { self.sendFile() }),
                ("peerd pipe", { self.pipe() }),
                ("scp", { self.scp() }),
                ("rsync over ssh", { self.rsync() }),
                ("iperf3", { self.iperfRate(length: nil).map { $0 / 1_048_576 } }),
            ]))
            list.append(folderComparison())
        }
        // The desktop app (issue 45), where the lab has a display server.
        if access("/usr/bin/Xvfb", X_OK) == 0 { list += desktopComparisons() }
        return list
    }

    // MARK: Messages

    /// 100-byte lines through `peerctl send - --lines` on host 1 into
    /// `peerctl recv` on host 2 (issue 25, point 4: what people at a shell
    /// use): from the sender's start until the receiver has them all, and
    /// only if its output is byte-identical to the input.
    private func peerctlRate() -> Double? {
        guard connect() else { return nil }
        let count = max(1, messages / 2)
        let input = directory + "/peerctl-lines.txt", output = directory + "/peerctl-recv.out"
        if access(input, F_OK) != 0 {
            _ = Subprocess.run(["sh", "-c", "seq -f 'line %095.0f' 1 \(count) > '\(input)'"])
        }
        unlink(output)
        let peerctl = bin + "/peerctl"
        let subscribers = { () -> Int in
            let status = self.lab.run(2, [peerctl, "--socket", self.lab["SOCK2"], "--json", "status"]).output
            return (try? JSONDecoder().decode(DaemonStatus.self, from: Data(status.utf8)))?.subscribers ?? 0
        }
        let before = subscribers()
        guard let receiver = lab.start(2, [peerctl, "--socket", lab["SOCK2"], "recv", "--from", "host1", "--count", String(count)], output: output) else {
            return nil
        }
        let deadline = Probes.monotonic() + 10
        while subscribers() <= before, Probes.monotonic() < deadline { usleep(10_000) }
        let start = Probes.monotonic()
        let sent = lab.run(1, ["sh", "-c", "'\(peerctl)' --socket '\(lab["SOCK1"])' send host2 - --lines < '\(input)' >/dev/null"])
        guard sent.status == 0, Subprocess.wait(receiver) == 0 else { return nil }
        let seconds = Probes.monotonic() - start
        guard Subprocess.run(["cmp", "-s", input, output]).status == 0 else { return nil }
        return Double(count) / seconds
    }

    /// A session between the two hosts (the lab has no auto-connect).
    func connect() -> Bool {
        let outcome = lab.probe(1, ["connect", lab["SOCK1"], "host2"])
        return outcome.status == 0
    }

    /// 100-byte messages from a client on host 1 to one on host 2: from
    /// the first sent until the last received.
    private func messageRate(json: Bool = false) -> Double? {
        guard connect() else { return nil }
        // The JSON path is slower: fewer messages keep the run short.
        let messages = json ? max(1, self.messages / 5) : self.messages
        let output = directory + "/recv.out"
        guard let receiver = lab.start(2, [bin + "/peerbench", "probe", json ? "json-take" : "channel-recv", lab["SOCK2"], "host1", String(messages)],
                                       output: output) else { return nil }
        guard lab.waitReady(output) else {
            kill(receiver, SIGTERM)
            _ = Subprocess.wait(receiver)
            return nil
        }
        let sent = BenchLab.words(lab.probe(1, [json ? "json-send" : "channel-send", lab["SOCK1"], "host2", String(messages), "100"]).output)
        guard Subprocess.wait(receiver) == 0 else { return nil }
        let received = BenchLab.words(BenchLab.read(output))
        guard let start = sent["start"].flatMap(Double.init), let last = received["last"].flatMap(Double.init),
              received["received"] == String(messages), last > start else { return nil }
        return Double(messages) / (last - start)
    }

    private var lastRoundTrip: (median: Double, p99: Double)?

    private func roundTrip() -> (median: Double, p99: Double)? {
        guard connect() else { return nil }
        let count = 2000
        let output = directory + "/echo.out"
        guard let echo = lab.start(2, [bin + "/peerbench", "probe", "channel-echo", lab["SOCK2"], "host1", String(count)], output: output) else { return nil }
        guard lab.waitReady(output) else {
            kill(echo, SIGTERM)
            _ = Subprocess.wait(echo)
            return nil
        }
        let words = BenchLab.words(lab.probe(1, ["channel-ping", lab["SOCK1"], "host2", String(count), "100"]).output)
        _ = Subprocess.wait(echo)
        guard let median = words["median"].flatMap(Double.init), let p99 = words["p99"].flatMap(Double.init) else { return nil }
        return (median, p99)
    }

    private func tcpRoundTrip() -> (median: Double, p99: Double)? {
        let words = BenchLab.words(lab.probe(1, ["tcp-ping", lab["ADDR2"], "7777", "2000", "100"]).output)
        guard let median = words["median"].flatMap(Double.init), let p99 = words["p99"].flatMap(Double.init) else { return nil }
        return (median, p99)
    }

    // MARK: Sessions

    private func sessionSetup() -> Double? {
        let words = BenchLab.words(lab.probe(1, ["setup", lab["SOCK1"], "host2", "1"]).output)
        return words["times"].flatMap { Double($0.split(separator: ",").first ?? "") }
    }

    private func tcpConnect() -> Double? {
        let words = BenchLab.words(lab.probe(1, ["tcp-connect", lab["ADDR2"], "7777", "1"]).output)
        return words["times"].flatMap { Double($0.split(separator: ",").first ?? "") }
    }

    private func sshTrue() -> Double? {
        guard lab.hasTools else { return nil }
        let start = Probes.monotonic()
        let outcome = lab.run(1, ["ssh", "-p", "2222", "-i", directory + "/userkey", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                                  "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", "root@" + lab["ADDR2"], "true"])
        guard outcome.status == 0 else { return nil }
        return (Probes.monotonic() - start) * 1000
    }

    // MARK: Bulk

    var source: String {
        let path = directory + "/bench-src.bin"
        if access(path, F_OK) != 0 {
            _ = Subprocess.run(["sh", "-c", "head -c \(bulkMiB << 20) /dev/urandom > '\(path)'"])
        }
        return path
    }

    func rate(seconds: Double) -> Double { Double(bulkMiB) / seconds }

    private func sendFile() -> Double? {
        guard connect() else { return nil }
        let source = self.source
        _ = Subprocess.run(["rm", "-rf", directory + "/dl2"])
        let peerd1 = pid_t(lab["PEERD1"]) ?? 0, peerd2 = self.peerd2
        let pings = startPings()
        let datagramPings = startDatagramPings()
        let costs = (BulkCost(peerd1), BulkCost(peerd2))
        let start = Probes.monotonic()
        guard let sender = lab.start(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "send-file", "host2", source], output: directory + "/send.out") else { return nil }
        // The memory peak, read while the transfer runs.
        var peak1 = 0.0, peak2 = 0.0
        var status: Int32 = 0
        while waitpid(sender, &status, WNOHANG) == 0 {
            peak1 = max(peak1, ProcessStats.resident(peerd1) ?? 0)
            peak2 = max(peak2, ProcessStats.resident(peerd2) ?? 0)
            usleep(20_000)
        }
        let seconds = Probes.monotonic() - start
        BulkCost.note(self, run: "send-file", who: "peerd sending", mib: bulkMiB, before: costs.0, after: BulkCost(peerd1))
        BulkCost.note(self, run: "send-file", who: "peerd receiving", mib: bulkMiB, before: costs.1, after: BulkCost(peerd2))
        stopPings(pings, during: "send-file")
        stopDatagramPings(datagramPings, during: "send-file")
        guard status == 0 else { return nil }
        note("memory at the peak of a \(bulkMiB) MiB send-file", "peerd sending, resident", "MB", peak1 / 1e6)
        note("memory at the peak of a \(bulkMiB) MiB send-file", "peerd receiving, resident", "MB", peak2 / 1e6)
        sleep(10)
        for (name, pid) in [("peerd sending", peerd1), ("peerd receiving", peerd2)] {
            let memory = ProcessStats.memory(pid)
            note("memory 10 s after it, resident", name, "MB", memory.map { $0.resident / 1e6 })
            note("memory 10 s after it, private", name, "MB", memory.map { $0.private / 1e6 })
        }
        return rate(seconds: seconds)
    }

    /// 100-byte round trips every 20 ms from host 1 to an echo on host 2,
    /// started beside a bulk run: (pinger, echo), either nil if it did
    /// not start.
    private func startPings() -> (pinger: pid_t?, echo: pid_t?) {
        let stopFile = directory + "/ping.stop", pingOutput = directory + "/ping.out"
        unlink(stopFile)
        unlink(pingOutput)
        let echo = lab.start(2, [bin + "/peerbench", "probe", "channel-echo", lab["SOCK2"], "host1", "1000000"], output: directory + "/echo2.out")
        var pinger: pid_t?
        if echo != nil, lab.waitReady(directory + "/echo2.out") {
            pinger = lab.start(1, [bin + "/peerbench", "probe", "channel-ping-until", lab["SOCK1"], "host2", stopFile, "100"], output: pingOutput)
            if pinger == nil || !lab.waitReady(pingOutput) { pinger = nil }
        }
        return (pinger, echo)
    }

    /// Stops the round trips and notes their worst and p99 `during` the run.
    private func stopPings(_ pings: (pinger: pid_t?, echo: pid_t?), during: String) {
        _ = Subprocess.run(["touch", directory + "/ping.stop"])
        if let pinger = pings.pinger { _ = Subprocess.wait(pinger) }
        if let echo = pings.echo {
            // The pinger's end does not end the echo's channel (each side's is its own): stop it.
            kill(echo, SIGTERM)
            _ = Subprocess.wait(echo)
        }
        let words = BenchLab.words(BenchLab.read(directory + "/ping.out"))
        note("worst round trip of 100 B during a \(bulkMiB) MiB \(during)", "peerd channel, every 20 ms", "ms", words["max"].flatMap(Double.init))
        note("round trip of 100 B during a \(bulkMiB) MiB \(during), p99", "peerd channel, every 20 ms", "ms", words["p99"].flatMap(Double.init))
    }

    private func pipe() -> Double? {
        guard connect() else { return nil }
        let source = self.source
        guard let receiver = lab.start(2, ["sh", "-c", "'\(bin)/peerctl' --socket '\(lab["SOCK2"])' pipe host1 --name bench </dev/null >/dev/null"],
                                       output: directory + "/pipe2.out") else { return nil }
        let pings = startPings()
        let datagramPings = startDatagramPings()
        let peerd1 = pid_t(lab["PEERD1"]) ?? 0, peerd2 = self.peerd2
        let costs = (BulkCost(peerd1), BulkCost(peerd2))
        let start = Probes.monotonic()
        let sent = lab.run(1, ["sh", "-c", "'\(bin)/peerctl' --socket '\(lab["SOCK1"])' pipe host2 --name bench <'\(source)' >/dev/null"])
        let received = Subprocess.wait(receiver)
        BulkCost.note(self, run: "pipe", who: "peerd sending", mib: bulkMiB, before: costs.0, after: BulkCost(peerd1))
        BulkCost.note(self, run: "pipe", who: "peerd receiving", mib: bulkMiB, before: costs.1, after: BulkCost(peerd2))
        stopPings(pings, during: "pipe")
        stopDatagramPings(datagramPings, during: "pipe")
        guard sent.status == 0, received == 0 else { return nil }
        return rate(seconds: Probes.monotonic() - start)
    }

    private func scp() -> Double? {
        let source = self.source
        _ = Subprocess.run(["rm", "-f", directory + "/scp.bin"])
        let start = Probes.monotonic()
        let outcome = lab.run(1, ["scp", "-q", "-P", "2222", "-i", directory + "/userkey", "-o", "StrictHostKeyChecking=no", "-o", "UserKnownHostsFile=/dev/null",
                                  "-o", "LogLevel=ERROR", "-o", "BatchMode=yes", source, "root@" + lab["ADDR2"] + ":" + directory + "/scp.bin"])
        guard outcome.status == 0 else { return nil }
        return rate(seconds: Probes.monotonic() - start)
    }

    /// iperf3 from host 1 to host 2 for 3 s: bytes a second at the receiver.
    private func iperfRate(length: Int?) -> Double? {
        var argv = ["iperf3", "-c", lab["ADDR2"], "-t", "3", "-J"]
        if let length { argv += ["-l", String(length)] }
        let outcome = lab.run(1, argv)
        struct Report: Decodable {
            struct End: Decodable { let sum_received: Sum }
            struct Sum: Decodable { let bytes: Double; let seconds: Double }
            let end: End
        }
        guard outcome.status == 0, let report = try? JSONDecoder().decode(Report.self, from: Data(outcome.output.utf8)),
              report.end.sum_received.seconds > 0 else { return nil }
        return report.end.sum_received.bytes / report.end.sum_received.seconds
    }

    // MARK: Discovery

    /// Stops peerd on host 2 and waits until host 1 lists it as lost.
    func stopPeerd2() -> Bool {
        kill(peerd2, SIGTERM)
        let deadline = Probes.monotonic() + 10
        var status: Int32 = 0
        while Probes.monotonic() < deadline, waitpid(peerd2, &status, WNOHANG) != peerd2, kill(peerd2, 0) == 0 { usleep(10_000) }
        while Probes.monotonic() < deadline {
            if lab.run(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "--json", "peer", "host2"]).output.contains("\"lost\":true") { return true }
            usleep(50_000)
        }
        return false
    }

    /// peerd on host 2 as the lab started it; false if it did not come up.
    func startPeerd2() -> Bool {
        guard let pid = lab.start(2, [bin + "/peerd", "--name", "host2", "--state-dir", directory + "/h2/state", "--socket", lab["SOCK2"],
                                      "--log-level", "notice", "--auto-connect", "no", "--download-dir", directory + "/dl2",
                                      "--max-peers", "512", "--max-unverified-peers", "512"],
                                  output: directory + "/h2/peerd-restarted.log") else { return false }
        peerd2 = pid
        return true
    }

    /// From the start of peerd on host 2 until host 1 lists it (peerd's
    /// `peerFound`), or until `avahi-browse -r` on host 1 resolves the
    /// service that peerd registers.
    private func discovery(avahi: Bool) -> Double? {
        guard stopPeerd2() else { return nil }
        let output = directory + "/found.out"
        let argv = avahi ? [bin + "/peerbench", "probe", "wait-line", "=;eth0;IPv4;host2;", "avahi-browse", "-r", "-p", "_peerd._tcp"]
                         : [bin + "/peerbench", "probe", "wait-found", lab["SOCK1"], "host2"]
        guard let watcher = lab.start(1, argv, output: output), lab.waitReady(output) else { _ = startPeerd2(); return nil }
        let start = Probes.wallClock()
        guard startPeerd2() else { return nil }
        _ = Subprocess.wait(watcher)
        // Wait for its control socket before the next figure uses it.
        let deadline = Probes.monotonic() + 10
        while Probes.monotonic() < deadline, lab.run(2, [bin + "/peerctl", "--socket", lab["SOCK2"], "status"]).status != 0 { usleep(20_000) }
        guard let found = BenchLab.words(BenchLab.read(output))["found"].flatMap(Double.init) else { return nil }
        return (found - start) * 1000
    }
}
