/// One `key=value` pair of a DNS-SD TXT record.
public struct TXTEntry: Hashable, Sendable, Codable {
    /// The key (case-insensitive per RFC 6763, kept as given).
    public var key: String
    /// The value; empty for a key given without `=`.
    public var value: String

    /// Creates an entry.
    public init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// The encoded form, `key=value`, as it goes on the wire.
    public var encoded: String { "\(key)=\(value)" }

    /// Splits one raw TXT string at its first `=`; a string without one is a
    /// boolean attribute with an empty value (RFC 6763 §6.4).
    public init(raw: String) {
        if let eq = raw.firstIndex(of: "=") {
            key = String(raw[..<eq])
            value = String(raw[raw.index(after: eq)...])
        } else {
            key = raw
            value = ""
        }
    }
}
