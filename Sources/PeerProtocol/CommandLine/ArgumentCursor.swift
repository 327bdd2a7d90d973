/// Walks a command line: `--flag value`, `--flag=value`, and `--` ending
/// options. Shared by `peerd` and `peerctl` so both parse alike.
package struct ArgumentCursor: Sendable {
    private var arguments: [String]
    private var index = 0
    private var pendingValue: String?
    private var optionsEnded = false

    /// A cursor over `arguments` (without the program name).
    package init(_ arguments: [String]) { self.arguments = arguments }

    /// The next token: `.option(name)` for `--name` or `-x`, `.positional` otherwise.
    package mutating func next() throws(UsageError) -> ArgumentToken? {
        if let pending = pendingValue {
            throw UsageError("option \(arguments[index - 1].split(separator: "=").first ?? "") takes no value (got '\(pending)')")
        }
        guard index < arguments.count else { return nil }
        let argument = arguments[index]
        index += 1
        if optionsEnded || argument == "-" || !argument.hasPrefix("-") { return .positional(argument) }
        if argument == "--" {
            optionsEnded = true
            return try next()
        }
        if argument.hasPrefix("--"), let eq = argument.firstIndex(of: "=") {
            pendingValue = String(argument[argument.index(after: eq)...])
            return .option(String(argument[..<eq]))
        }
        return .option(argument)
    }

    /// Confirms the option just returned takes no value (`--help=yes` is an error).
    package mutating func flag(_ option: String) throws(UsageError) {
        if let pending = pendingValue { throw UsageError("option \(option) takes no value (got '\(pending)')") }
    }

    /// The value of the option just returned by ``next()``.
    package mutating func value(for option: String) throws(UsageError) -> String {
        if let pending = pendingValue {
            pendingValue = nil
            return pending
        }
        guard index < arguments.count else { throw UsageError("option \(option) needs a value") }
        index += 1
        return arguments[index - 1]
    }

    /// The value of the option just returned, as an integer within `range`.
    package mutating func integer(for option: String, in range: ClosedRange<Int>) throws(UsageError) -> Int {
        let text = try value(for: option)
        guard let number = Int(text), range.contains(number) else {
            throw UsageError("option \(option): '\(text)' is not a whole number from \(range.lowerBound) to \(range.upperBound)")
        }
        return number
    }
}
