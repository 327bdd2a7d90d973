/// One token of a command line.
package enum ArgumentToken: Equatable, Sendable {
    /// `--name` or `-x` (a `--name=value` value is fetched separately).
    case option(String)
    /// Anything else.
    case positional(String)
}
