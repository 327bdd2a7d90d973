package import FoundationEssentials

/// Progress of one transfer as clients see it (issue 12, point 5): bytes
/// and files done of the totals, the rate, and the time left, reported at
/// most ``minInterval`` apart (10 a second) however fast blocks arrive.
/// Pure: the caller feeds it what was done and the time.
package struct ProgressMeter: Sendable, Equatable {
    /// One report.
    package struct Report: Sendable, Equatable {
        /// Bytes done.
        package var bytes: Int64
        /// Bytes in all.
        package var totalBytes: Int64
        /// Files done.
        package var files: Int
        /// Files in all.
        package var totalFiles: Int
        /// Bytes a second, over the last few seconds (0 before there is a measure).
        package var rate: Double
        /// Seconds left at that rate; nil while the rate is 0.
        package var eta: Double?
    }

    /// The least time between two reports.
    package static let minInterval: TimeInterval = 0.1
    /// How slowly the rate follows a change: a new sample `t` seconds long
    /// weighs `t / (t + smoothing)` against the rate so far.
    package static let smoothing: TimeInterval = 2

    /// Bytes in all.
    package let totalBytes: Int64
    /// Files in all.
    package let totalFiles: Int
    private var bytes: Int64 = 0
    private var files = 0
    private var rate: Double = 0
    /// When the rate was last measured, and the bytes done then.
    private var sampleTime: Date
    private var sampleBytes: Int64 = 0
    private var lastReport: Date?

    /// A meter for `totalBytes` in `totalFiles` files, started at `now`.
    package init(totalBytes: Int64, totalFiles: Int, now: Date) {
        self.totalBytes = totalBytes
        self.totalFiles = totalFiles
        sampleTime = now
    }

    /// `count` more bytes are done (and `filesDone` more files). Returns a
    /// report if one is due: at most every ``minInterval``, and always the
    /// last one, when everything is done.
    package mutating func advance(bytes count: Int64, filesDone: Int = 0, now: Date) -> Report? {
        bytes = min(totalBytes, bytes + count)
        files = min(totalFiles, files + filesDone)
        let elapsed = now.timeIntervalSince(sampleTime)
        if elapsed >= Self.minInterval {
            let instant = Double(bytes - sampleBytes) / elapsed
            let keep = rate == 0 ? 0 : Self.smoothing / (Self.smoothing + elapsed)
            rate = keep * rate + (1 - keep) * instant
            sampleTime = now
            sampleBytes = bytes
        }
        let finished = bytes == totalBytes && files == totalFiles
        if !finished, let last = lastReport, now.timeIntervalSince(last) < Self.minInterval { return nil }
        lastReport = now
        return report
    }

    /// Where it stands now.
    package var report: Report {
        let left = Double(totalBytes - bytes)
        return Report(bytes: bytes, totalBytes: totalBytes, files: files, totalFiles: totalFiles, rate: rate,
                      eta: rate > 0 ? left / rate : (left == 0 ? 0 : nil))
    }
}
