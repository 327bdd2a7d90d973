
/// The numbers of one figure over its runs: how peerbench reports every
/// measurement (issue 13): the median, with the least and the most, and
/// how many runs. Pure: tested as a table.
package struct BenchSummary: Codable, Sendable, Equatable {
    /// Runs measured.
    package var runs: Int
    /// The smallest value.
    package var min: Double
    /// The median (the mean of the middle two for an even count).
    package var median: Double
    /// The largest value.
    package var max: Double

    /// A summary with these numbers.
    package init(runs: Int, min: Double, median: Double, max: Double) {
        self.runs = runs
        self.min = min
        self.median = median
        self.max = max
    }

    /// The summary of `values`; nil for none.
    package init?(_ values: [Double]) {
        guard !values.isEmpty else { return nil }
        let sorted = values.sorted()
        runs = sorted.count
        min = sorted[0]
        max = sorted[sorted.count - 1]
        median = Self.quantile(sorted, 0.5)
    }

    /// The `q` quantile (0…1) of sorted values, linearly interpolated
    /// between the nearest ranks (p99 of round trips, for one).
    package static func quantile(_ sorted: [Double], _ q: Double) -> Double {
        guard sorted.count > 1 else { return sorted.first ?? 0 }
        let position = q * Double(sorted.count - 1)
        let lower = Int(position.rounded(.down))
        let upper = Swift.min(lower + 1, sorted.count - 1)
        let fraction = position - Double(lower)
        return sorted[lower] + (sorted[upper] - sorted[lower]) * fraction
    }
}
