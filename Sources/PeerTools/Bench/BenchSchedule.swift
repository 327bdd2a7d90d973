
/// The order peerbench measures in (issue 13): within each comparison,
/// its variants take turns, A B A B, run after run, so a machine that
/// slows down or speeds up part-way weighs on both sides alike.
package enum BenchSchedule {
    /// One measurement to make.
    package struct Step: Sendable, Equatable {
        /// The comparison (a row group of the table).
        package var comparison: String
        /// Which variant of it (peerd, or what it is measured next to).
        package var variant: String
        /// 1, 2, … up to the run count.
        package var run: Int

        /// Creates it.
        package init(comparison: String, variant: String, run: Int) {
            self.comparison = comparison
            self.variant = variant
            self.run = run
        }
    }

    /// Every step for `comparisons` (each with its variants, in order),
    /// `runs` times each: comparison by comparison, and within one, run by
    /// run with every variant in each run.
    package static func steps(_ comparisons: [(name: String, variants: [String])], runs: Int) -> [Step] {
        comparisons.flatMap { comparison in
            (1...Swift.max(1, runs)).flatMap { run in
                comparison.variants.map { Step(comparison: comparison.name, variant: $0, run: run) }
            }
        }
    }
}
