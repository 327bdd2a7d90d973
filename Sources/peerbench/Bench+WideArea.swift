import FoundationEssentials
import Glibc
import PeerSystem
import PeerTools

/// Discovery through the site's DNS (issue 46), beside kdig.
extension Bench {
    /// The comparison's name.
    static let wideAreaName = "discovery through the site's DNS, across a router: from peerd's start on host 2"

    /// Runs Tests/bench/widearea_bench.sh (a lab of its own: two subnets, a
    /// router, Knot DNS on a third) for `runs` runs. Each run gives when
    /// kdig on host 1 first resolves host 2's records from the server, and
    /// when host 1's peerd lists host 2, both from host 2's start; and the
    /// lag between them, whose goal is at most 1 s.
    func wideArea(_ progress: (String) -> Void) -> [BenchRow] {
        guard access("/usr/sbin/knotd", X_OK) == 0 else {
            return [BenchRow(comparison: Self.wideAreaName, variant: "peerd", unit: "ms", summary: nil, note: "knotd is not installed (make deps)")]
        }
        progress("wide-area: \(runs) runs in a lab of its own")
        let outcome = Subprocess.run(["bash", root + "/Tests/bench/widearea_bench.sh", bin, String(runs)], errorPath: directory + "/widearea-bench.log")
        var resolved: [Double] = [], listed: [Double] = [], lag: [Double] = []
        for line in outcome.output.split(separator: "\n") where line.hasPrefix("run=") {
            let words = BenchLab.words(String(line))
            guard let start = words["start"].flatMap(Double.init), let seen = words["resolved"].flatMap(Double.init),
                  let found = words["listed"].flatMap(Double.init) else { continue }
            resolved.append((seen - start) * 1000)
            listed.append((found - start) * 1000)
            lag.append((found - seen) * 1000)
        }
        let failed = lag.count < runs ? "\(runs - lag.count) of \(runs) runs failed (\(directory)/widearea-bench.log)" : nil
        let worst = lag.max() ?? .infinity
        return [
            BenchRow(comparison: Self.wideAreaName, variant: "peerd on host 1 lists it", unit: "ms", summary: BenchSummary(listed), note: failed),
            BenchRow(comparison: Self.wideAreaName, variant: "kdig on host 1 resolves its PTR and SRV (the same server)", unit: "ms",
                     summary: BenchSummary(resolved), note: failed),
            BenchRow(comparison: "discovery through the site's DNS: peerd lists a new peer after its records can be resolved", variant: "peerd after kdig",
                     unit: "ms", summary: BenchSummary(lag),
                     note: lag.isEmpty ? failed : "goal: at most 1,000 ms; worst \(Int(worst)) ms: " + (worst <= 1000 ? "met" : "not met")),
        ]
    }
}
