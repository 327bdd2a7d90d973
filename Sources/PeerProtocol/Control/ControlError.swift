/// A typed error in a response or a final event.
public struct ControlError: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    /// The machine-readable code.
    public var code: ControlErrorCode
    /// A sentence for people.
    public var message: String

    /// Creates an error.
    public init(_ code: ControlErrorCode, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
