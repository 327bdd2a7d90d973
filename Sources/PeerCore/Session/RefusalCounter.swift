/// Counts refusals of one kind (a cap or a rate hit) and says which of them
/// to log: the first, then every 100th, so a flood leaves a few lines with
/// running totals rather than one line per attempt.
package struct RefusalCounter: Sendable {
    /// Refusals so far.
    package private(set) var count = 0

    /// A counter at zero.
    package init() {}

    /// Counts one refusal; true when this one should be logged.
    package mutating func record() -> Bool {
        count += 1
        return count == 1 || count % 100 == 0
    }
}
