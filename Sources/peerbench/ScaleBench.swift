import FoundationEssentials
import Glibc
import PeerSystem
import PeerTools

/// The scale figure (issue 25, point 5): `Tests/bench/scale_lab.sh` builds
/// a lab of `hosts` hosts, each with avahi-daemon and peerd, measures, and
/// exits; its `key=value` lines become rows here. One run: each row's
/// values are the hosts' (median, least and most over the hosts), so the
/// "runs" column counts hosts. Not in the default run (minutes long).
struct ScaleBench {
    /// The source tree and the programs.
    let root: String
    let bin: String
    /// Hosts in the lab.
    let hosts: Int

    /// The rows, or one row saying why there are none.
    func run(progress: (String) -> Void) -> [BenchRow] {
        progress("scale: \(hosts) hosts, each with avahi-daemon and peerd (a few minutes)")
        let errors = "/tmp/peerbench-scale-\(getpid()).err"
        let outcome = Subprocess.run(["bash", root + "/Tests/bench/scale_lab.sh", bin, String(hosts)], errorPath: errors, timeout: 1200)
        let words = BenchLab.words(outcome.output)
        guard outcome.status == 0, words["done"] != nil || outcome.output.contains("\ndone") else {
            let why = words["error"] ?? "scale_lab.sh exited with \(outcome.status); see \(errors)"
            return [BenchRow(comparison: "\(hosts) hosts", variant: "the scale lab", unit: "", summary: nil, note: why)]
        }
        unlink(errors)
        let perHost = { (key: String) -> [Double] in (1...hosts).compactMap { words["\(key)_\($0)"].flatMap(Double.init) } }
        let others = hosts - 1
        let idle = words["idle_seconds"].flatMap(Double.init) ?? 30
        var rows: [BenchRow] = []
        func row(_ comparison: String, _ variant: String, _ unit: String, _ values: [Double], note: String? = nil) {
            rows.append(BenchRow(comparison: comparison, variant: variant, unit: unit, summary: BenchSummary(values), note: note))
        }
        let listing = "\(hosts) hosts: each lists all \(others) others, from all started at once"
        row(listing, "peerd", "ms", perHost("listed_ms"))
        row(listing, "avahi-browse -r, the same hosts", "ms", perHost("resolved_ms"))
        row("\(hosts) hosts idle with \(others) peers: private memory of each peerd", "peerd", "MB", perHost("private_kb").map { $0 / 1024 })
        row("\(hosts) hosts idle with \(others) peers: wake-ups of each peerd", "peerd, all threads", "/s", perHost("wakeups").map { $0 / idle })
        let minute = 60 / idle
        let mdns = "\(hosts) hosts idle, no session: packets a minute (mDNS), all hosts"
        let withPeerd: Double? = words["packets_peerd"].flatMap { Double($0) }
        let alone: Double? = words["packets_avahi"].flatMap { Double($0) }
        row(mdns, "avahi-daemon with peerd", "pkt/min", withPeerd.map { [$0 * minute] } ?? [])
        row(mdns, "avahi-daemon alone", "pkt/min", alone.map { [$0 * minute] } ?? [])
        let restart = "\(hosts) hosts restarted at once, \(words["pairings"] ?? "?") pairings (3 a host)"
        row(restart + ": paired sessions back", "peerd, per host", "ms", perHost("back_ms"))
        row(restart + ": dials made", "peerd, per host", "dials", perHost("dials"))
        return rows
    }
}
