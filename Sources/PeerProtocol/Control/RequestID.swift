/// A request id, echoed in the response: a JSON number or string.
public enum RequestID: Codable, Sendable, Hashable, CustomStringConvertible {
    /// A numeric id.
    case number(Int64)
    /// A string id.
    case string(String)

    /// Decodes a number or a string.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let number = try? container.decode(Int64.self) {
            self = .number(number)
        } else {
            self = .string(try container.decode(String.self))
        }
    }

    /// Encodes as the JSON type it came as.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        switch self {
        case .number(let n): try container.encode(n)
        case .string(let s): try container.encode(s)
        }
    }

    /// The id as text.
    public var description: String {
        switch self {
        case .number(let n): return String(n)
        case .string(let s): return s
        }
    }
}
