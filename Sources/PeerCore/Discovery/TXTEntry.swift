/// One `key=value` pair of a DNS-SD TXT record.
package struct TXTEntry: Hashable, Sendable, Codable {
    /// The key (case-insensitive per RFC 6763, kept as given).
    package var key: String
    /// The value; empty for a key given without `=`.
    package var value: String

    /// Creates an entry.
    package init(key: String, value: String) {
        self.key = key
        self.value = value
    }

    /// The encoded form, `key=value`, as it goes on the wire.
    package var encoded: String { "\(key)=\(value)" }

    /// Splits one raw TXT string at its first `=`; a string without one is a
    /// boolean attribute with an empty value (RFC 6763 §6.4).
    package init(raw: String) {
        if let eq = raw.firstIndex(of: "=") {
            key = String(raw[..<eq])
            value = String(raw[raw.index(after: eq)...])
        } else {
            key = raw
            value = ""
        }
    }
}
