import FoundationEssentials
import Glibc
import PeerSystem

/// The desktop app's figures (issue 45, "done when"): how soon peerd-gtk
/// shows a peer's appearance, connection and loss after the daemon's
/// event, and how soon it answers a click, idle and while a send-file of
/// the bulk size runs. Read through the accessibility tree by
/// Tests/bench/desktop_probe.py on host 1, which also subscribes beside
/// the app: both times are on its one clock.
extension Bench {
    /// What a reaction figure waits for.
    enum WindowEvent {
        /// host2's peerd starts: `peerFound`, and its row.
        case appears
        /// host1 invites host2: `stateChanged` to connected, and its row says so.
        case connects
        /// host2's peerd stops: `peerLost`, and its row says lost.
        case lost
    }

    /// The desktop's two comparisons: the window's reactions, and a click's answer.
    func desktopComparisons() -> [Comparison] {
        [Comparison(name: "desktop: the window shows a daemon event", unit: "ms", variants: [
            ("peer appears", { self.windowReaction(.appears) }),
            ("peer connects", { self.windowReaction(.connects) }),
            ("peer lost", { self.windowReaction(.lost) }),
         ]),
         Comparison(name: "desktop: a click's answer, median of 20", unit: "ms", variants: [
            ("idle", { self.clickAnswer(during: false) }),
            ("during a \(bulkMiB) MiB send-file", { self.clickAnswer(during: true) }),
         ])]
    }

    /// The probe's output so far.
    private var desktopOutput: String { BenchLab.read(directory + "/desktop.out") }

    /// Starts the desktop's probe once; false when it cannot run here.
    private func startDesktop() -> Bool {
        if desktop != nil { return true }
        if desktopFailed { return false }
        guard let pid = lab.start(1, ["/usr/bin/python3", root + "/Tests/bench/desktop_probe.py", "session", directory, bin, lab["SOCK1"]],
                                  output: directory + "/desktop.out") else {
            desktopFailed = true
            return false
        }
        let deadline = Probes.monotonic() + 30
        while Probes.monotonic() < deadline, !desktopOutput.contains("ready pid=") { usleep(20_000) }
        guard desktopOutput.contains("ready pid=") else {
            kill(pid, SIGTERM)
            _ = Subprocess.wait(pid)
            desktopFailed = true
            return false
        }
        desktop = pid
        // Their memory once they have settled, before any figure's work.
        sleep(5)
        noteDesktopMemory("at idle, 5 s after start")
        return true
    }

    /// The app's and the agent's memory now, noted as `when`.
    private func noteDesktopMemory(_ when: String) {
        let ready = desktopOutput.split(separator: "\n").first { $0.hasPrefix("ready ") }.map { BenchLab.words(String($0)) } ?? [:]
        for (name, key) in [("peerd-gtk", "pid"), ("peerd-agent", "agent")] {
            guard let pid = ready[key].flatMap(pid_t.init), pid > 0, let memory = ProcessStats.memory(pid) else { continue }
            note("desktop: memory \(when), private", name, "MB", memory.private / 1e6)
            note("desktop: memory \(when), resident", name, "MB", memory.resident / 1e6)
        }
    }

    /// Stops the desktop's probe, which stops its children (the display,
    /// the bus, the app, its subscriber).
    func stopDesktop() {
        guard let desktop else { return }
        noteDesktopMemory("after the figures")
        kill(desktop, SIGTERM)
        _ = Subprocess.wait(desktop)
        self.desktop = nil
    }

    /// One line of the probe's output: its kind and words.
    private struct ProbeLine {
        let kind: Substring
        let words: [String: String]
        var time: Double? { words["t"].flatMap(Double.init) }
    }

    /// The probe's lines after the first `skip` characters.
    private func probeLines(after skip: Int) -> [ProbeLine] {
        let text = desktopOutput
        guard text.count > skip else { return [] }
        return text.dropFirst(skip).split(separator: "\n").compactMap { line in
            guard let kind = line.split(separator: " ").first else { return nil }
            return ProbeLine(kind: kind, words: BenchLab.words(String(line)))
        }
    }

    /// Milliseconds from the daemon's event to the window showing it.
    private func windowReaction(_ event: WindowEvent) -> Double? {
        guard startDesktop() else { return nil }
        let peerctl = bin + "/peerctl"
        // Where each starts from.
        switch event {
        case .appears: guard stopPeerd2() else { return nil }
        case .connects:
            _ = lab.run(1, [peerctl, "--socket", lab["SOCK1"], "disconnect", "host2"])
            usleep(300_000)
        case .lost: break
        }
        usleep(200_000)
        let mark = desktopOutput.count
        switch event {
        case .appears: guard startPeerd2() else { return nil }
        case .connects: guard lab.run(1, [peerctl, "--socket", lab["SOCK1"], "invite", "host2", "--wait"]).status == 0 else { return nil }
        case .lost: guard stopPeerd2() else { return nil }
        }
        let (type, state, shown) = switch event {
        case .appears: ("peerFound", nil as String?, "host2|")
        case .connects: ("stateChanged", "connected" as String?, "host2|connected")
        case .lost: ("peerLost", nil as String?, "host2|lost")
        }
        var delay: Double?
        let deadline = Probes.monotonic() + 15
        while delay == nil, Probes.monotonic() < deadline {
            let lines = probeLines(after: mark)
            if let said = lines.first(where: { $0.kind == "event" && $0.words["type"] == type && $0.words["name"] == "host2"
                                              && (state == nil || $0.words["state"] == state) })?.time,
               let seen = lines.first(where: { $0.kind == "ui" && ($0.words["rows"] ?? "").contains(shown)
                                              && !(event == .appears && ($0.words["rows"] ?? "").contains("host2|lost")) })?.time {
                // The app may show it before the probe's own subscriber hears it.
                delay = max(0, seen - said) * 1000
            } else {
                usleep(20_000)
            }
        }
        if event == .lost {
            // host2 back, with its control socket, for the figures after.
            _ = startPeerd2()
            let back = Probes.monotonic() + 10
            while Probes.monotonic() < back, lab.run(2, [peerctl, "--socket", lab["SOCK2"], "status"]).status != 0 { usleep(20_000) }
        }
        return delay
    }

    /// The median milliseconds from a click (a row selected, then none)
    /// to the detail that shows it, over 20 clicks; the worst is noted.
    private func clickAnswer(during bulk: Bool) -> Double? {
        guard startDesktop(), connect() else { return nil }
        var sender: pid_t?
        if bulk {
            _ = Subprocess.run(["rm", "-rf", directory + "/dl2"])
            sender = lab.start(1, [bin + "/peerctl", "--socket", lab["SOCK1"], "send-file", "host2", source], output: directory + "/desktop-send.out")
            usleep(1_000_000)
        }
        defer {
            if let sender {
                kill(sender, SIGTERM)
                _ = Subprocess.wait(sender)
                _ = Subprocess.run(["rm", "-rf", directory + "/dl2"])
            }
        }
        let outcome = lab.run(1, ["/usr/bin/python3", root + "/Tests/bench/desktop_probe.py", "clicks", directory, "10", "host2"])
        // Clicks after the transfer ended would not be clicks during it.
        if let sender, kill(sender, 0) != 0 || waitpid(sender, nil, WNOHANG) == sender { return nil }
        let words = BenchLab.words(outcome.output)
        let during = bulk ? "during a \(bulkMiB) MiB send-file" : "idle"
        note("desktop: a click's answer, worst of 20", during, "ms", words["max"].flatMap(Double.init))
        return words["p50"].flatMap(Double.init)
    }
}
