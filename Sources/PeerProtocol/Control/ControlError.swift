/// A typed error in a response or a final event.
public struct ControlError: Codable, Sendable, Equatable, Error, CustomStringConvertible {
    /// The machine-readable code.
    public var code: ControlErrorCode
    /// A sentence for people.
    public var message: String
    /// The request parameter at fault, for `invalidParams` where one is
    /// (`since`); absent otherwise. Since 0.3.0.
    public var field: String?
    /// For `unsupported`: the wire feature the peer lacks (`files`). Since 0.3.0.
    public var feature: String?
    /// For `unsupported`: the release the peer runs (`0.2.0`). Since 0.3.0.
    public var release: String?

    /// Creates an error.
    public init(_ code: ControlErrorCode, _ message: String, field: String? = nil, feature: String? = nil, release: String? = nil) {
        self.code = code
        self.message = message
        self.field = field
        self.feature = feature
        self.release = release
    }

    /// `code: message`.
    public var description: String { "\(code.rawValue): \(message)" }
}
