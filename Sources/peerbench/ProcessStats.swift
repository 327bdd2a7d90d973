import Glibc

/// What `/proc` says about a process, for the memory and CPU figures.
enum ProcessStats {
    /// Resident and private memory in bytes (`smaps_rollup`: `Rss`, and
    /// `Private_Clean` + `Private_Dirty`); nil when the process is gone.
    static func memory(_ pid: pid_t) -> (resident: Double, private: Double)? {
        let text = BenchLab.read("/proc/\(pid)/smaps_rollup")
        guard !text.isEmpty else { return nil }
        var resident = 0.0, privateBytes = 0.0
        for line in text.split(separator: "\n") {
            let fields = line.split(separator: " ", omittingEmptySubsequences: true)
            guard fields.count >= 2, let kib = Double(fields[1]) else { continue }
            switch fields[0] {
            case "Rss:": resident = kib * 1024
            case "Private_Clean:", "Private_Dirty:": privateBytes += kib * 1024
            default: break
            }
        }
        return (resident, privateBytes)
    }

    /// Resident memory in bytes from `statm`, which the kernel answers from
    /// its counters: `smaps_rollup` walks every mapping's page tables under
    /// the process's memory lock, and read every 20 ms beside a transfer it
    /// took a core from the daemons it measured (issue 44: the bench's own
    /// reads sat beside the round trips' worst waits).
    static func resident(_ pid: pid_t) -> Double? {
        let fields = BenchLab.read("/proc/\(pid)/statm").split(separator: " ")
        guard fields.count > 1, let pages = Double(fields[1]) else { return nil }
        return pages * Double(sysconf(Int32(_SC_PAGESIZE)))
    }

    /// CPU seconds used so far (user + system, every thread).
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        let text = BenchLab.read("/proc/\(pid)/stat")
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3; utime and stime are fields 14 and 15.
        guard fields.count > 13, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    /// Minor page faults so far (every thread, ended ones too): a buffer
    /// mapped afresh shows here, one fault per 4 KiB page it touches.
    static func minorFaults(_ pid: pid_t) -> Double? {
        let text = BenchLab.read("/proc/\(pid)/stat")
        guard let close = text.lastIndex(of: ")") else { return nil }
        let fields = text[text.index(after: close)...].split(separator: " ")
        // After the name: state is field 3; minflt is field 10.
        guard fields.count > 7 else { return nil }
        return Double(fields[7])
    }

    /// Context switches so far, per thread: each is a wake-up or a
    /// preemption, the cost an idle daemon puts on the machine. Compare
    /// two readings over the threads in both (a thread that ended takes
    /// its count with it).
    static func contextSwitches(_ pid: pid_t) -> [String: Double] {
        guard let tasks = opendir("/proc/\(pid)/task") else { return [:] }
        defer { closedir(tasks) }
        var counts: [String: Double] = [:]
        while let entry = readdir(tasks) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            guard !name.hasPrefix(".") else { continue }
            for line in BenchLab.read("/proc/\(pid)/task/\(name)/status").split(separator: "\n")
            where line.hasPrefix("voluntary_ctxt_switches") || line.hasPrefix("nonvoluntary_ctxt_switches") {
                counts[name, default: 0] += line.split(whereSeparator: { $0 == " " || $0 == "\t" }).last.flatMap { Double($0) } ?? 0
            }
        }
        return counts
    }

    /// Context switches between two readings, over the threads in both.
    static func switchesBetween(_ before: [String: Double], _ after: [String: Double]) -> Double {
        after.reduce(0) { total, entry in total + (before[entry.key].map { entry.value - $0 } ?? 0) }
    }
}
