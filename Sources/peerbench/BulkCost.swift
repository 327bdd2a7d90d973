import Glibc

/// What a daemon spent on one bulk run (issue 44): CPU seconds, page
/// faults and thread switches, read from `/proc` before and after, so a
/// table shows the cost per GiB beside the speed. Page faults and thread
/// switches were where a byte's cost hid (docs/performance.md, "The
/// second pass"): a buffer mapped afresh per chunk, a thread woken per
/// frame.
struct BulkCost {
    /// CPU seconds, user and system, of every thread (ended ones too).
    let cpu: Double
    /// Minor page faults of the whole process (ended threads too).
    let faults: Double
    /// Thread switches per thread alive at the reading.
    let switches: [String: Double]

    /// A reading of `pid`; nil when it is gone.
    init?(_ pid: pid_t) {
        guard let cpu = ProcessStats.cpuSeconds(pid), let faults = ProcessStats.minorFaults(pid) else { return nil }
        self.cpu = cpu
        self.faults = faults
        switches = ProcessStats.contextSwitches(pid)
    }

    /// Notes what was spent since `before`, per GiB of `mib` moved, under
    /// `run` ("send-file", "pipe") for `who` ("peerd sending").
    /// Switches count every thread alive now, a thread begun during the
    /// run whole (its count started at 0); one that ended takes its own.
    static func note(_ bench: Bench, run: String, who: String, mib: Int, before: BulkCost?, after: BulkCost?) {
        guard let before, let after, mib > 0 else { return }
        let perGiB = 1024 / Double(mib)
        let switched = after.switches.reduce(0) { total, entry in total + entry.value - (before.switches[entry.key] ?? 0) }
        bench.note("CPU per GiB of a \(run)", who, "s", (after.cpu - before.cpu) * perGiB)
        bench.note("page faults per GiB of a \(run)", who, "count", (after.faults - before.faults) * perGiB)
        bench.note("thread switches per GiB of a \(run)", who, "count", switched * perGiB)
    }
}
