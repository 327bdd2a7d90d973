
/// One line of peerbench's table: a figure of one variant over its runs,
/// with its unit and whether more is better (issue 13).
package struct BenchRow: Codable, Sendable, Equatable {
    /// The comparison it belongs to (`message rate, 100 B`).
    package var comparison: String
    /// What was measured (`peerd channel`, `iperf3 -l 100`).
    package var variant: String
    /// The unit of the values (`msg/s`, `ms`, `MiB/s`, `MB`).
    package var unit: String
    /// The values' summary; nil when every run failed.
    package var summary: BenchSummary?
    /// Words for the reader: a goal and whether it was met, or why a run failed.
    package var note: String?

    /// Creates it.
    package init(comparison: String, variant: String, unit: String, summary: BenchSummary?, note: String? = nil) {
        self.comparison = comparison
        self.variant = variant
        self.unit = unit
        self.summary = summary
        self.note = note
    }
}
