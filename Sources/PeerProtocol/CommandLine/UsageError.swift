/// A command line that cannot be obeyed. Exit code 2.
package struct UsageError: Error, Equatable, Sendable, CustomStringConvertible {
    /// What is wrong, naming the option.
    package var message: String

    /// Creates an error.
    package init(_ message: String) { self.message = message }

    /// The message.
    package var description: String { message }
}
