/// A command line that cannot be obeyed. Exit code 2.
public struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the option.
    public var message: String

    /// Creates an error.
    public init(_ message: String) { self.message = message }

    /// The message.
    public var description: String { message }
}
