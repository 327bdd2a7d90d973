/// One row group of peerbench's table: what is compared, in what unit,
/// and how each variant is measured once (nil when a run failed).
struct Comparison {
    /// The figure (`message rate, 100 B`).
    let name: String
    /// The unit of every variant's values.
    let unit: String
    /// Each variant and its one measurement; peerd's comes first.
    let variants: [(name: String, measure: () -> Double?)]
}
