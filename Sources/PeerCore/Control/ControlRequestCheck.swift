/// Checks what a decoder would blur in a request line: that `v` is exactly
/// the integer 1, and that each known parameter has its JSON type, so a
/// client learns which field is wrong. Works on the raw JSON text of the
/// line's top-level members (the decoder reads `1.0` as 1 and reports a
/// negative `since` without naming it).
package import PeerProtocol
package enum ControlRequestCheck {
    /// The JSON kind each known parameter must have.
    private static let parameterKinds: [String: (kind: Kind, expected: String)] = [
        "peer": (.string, "a string (UUID, UUID prefix or name)"),
        "since": (.naturalNumber, "a whole number ≥ 0"),
        "context": (.string, "a string"),
        "contextData": (.string, "a string (the context in base64)"),
        "app": (.string, "a string (an app name)"),
        "timeout": (.number, "a number of seconds"),
        "invitation": (.string, "a string (the invitation id)"),
        "data": (.string, "a string (the message in base64)"),
        "pairing": (.string, "a string (the pairing id)"),
        "code": (.string, "a string of 6 digits"),
        "queue": (.bool, "true or false"),
        "take": (.bool, "true or false"),
        "receive": (.bool, "true or false"),
        "opened": (.bool, "true or false"),
        "count": (.naturalNumber, "a whole number ≥ 0"),
        "max": (.naturalNumber, "a whole number ≥ 0"),
        "offset": (.naturalNumber, "a whole number ≥ 0"),
    ]

    private enum Kind { case string, number, naturalNumber, bool }

    /// The error for a line whose `v` or parameters are wrong, or nil. A
    /// line that is not a JSON object is left to the decoder.
    package static func check(_ line: [UInt8]) -> ControlError? {
        guard let members = JSONMembers.of(line) else { return nil }
        if let v = members["v"], v != "1" {
            let shown = v.count > 40 ? String(v.prefix(40)) + "…" : v
            return ControlError(.unsupportedVersion, "protocol version \(shown) is not supported; \"v\" must be the integer \(ControlProtocol.version)")
        }
        guard let params = members["params"], params != "null" else { return nil }
        guard let fields = JSONMembers.of(Array(params.utf8)) else {
            return ControlError(.invalidParams, "params must be an object")
        }
        for key in fields.keys.sorted() {
            guard let rule = parameterKinds[key], let raw = fields[key], raw != "null", !matches(raw, rule.kind) else { continue }
            let shown = raw.count > 40 ? String(raw.prefix(40)) + "…" : raw
            return ControlError(.invalidParams, "params.\(key) must be \(rule.expected), not \(shown)", field: key)
        }
        return nil
    }

    private static func matches(_ raw: String, _ kind: Kind) -> Bool {
        switch kind {
        case .string: return raw.hasPrefix("\"")
        case .bool: return raw == "true" || raw == "false"
        case .number: return raw.first.map { $0 == "-" || $0.isASCII && $0.isNumber } ?? false
        case .naturalNumber: return !raw.isEmpty && raw.allSatisfy { $0.isASCII && $0.isNumber }
        }
    }
}
