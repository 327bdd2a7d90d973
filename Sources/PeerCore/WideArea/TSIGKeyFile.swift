internal import FoundationEssentials

/// Reads a TSIG key file (issue 46, `--dns-update-key FILE`) in either
/// format a site's DNS server writes, so a key is used as it was made:
///
/// BIND's `tsig-keygen NAME`:
///
///     key "peerd-update" {
///         algorithm hmac-sha256;
///         secret "lncYREJI6MKGLlRMuYVAC/pj3/ONCCAJNxLDgn+e4hs=";
///     };
///
/// Knot's `keymgr -t NAME hmac-sha256`:
///
///     # hmac-sha256:peerd-update:lncYREJI6MKGLlRMuYVAC/pj3/ONCCAJNxLDgn+e4hs=
///     key:
///       - id: peerd-update
///         algorithm: hmac-sha256
///         secret: lncYREJI6MKGLlRMuYVAC/pj3/ONCCAJNxLDgn+e4hs=
///
/// One key a file. Comments (`#`, `//`, and BIND's `/* */` on one line)
/// are skipped. Pure: the caller reads the file (and checks its mode).
package enum TSIGKeyFile {
    /// The longest file read (a key file is a few lines).
    package static let maxBytes = 16 * 1024
    /// The longest secret taken, in bytes (HMAC-SHA512's block).
    package static let maxSecret = 128

    /// Why a key file was not taken: the line (from 1, 0 for the file)
    /// and what was wrong there.
    package struct Refusal: Error, Equatable, CustomStringConvertible {
        /// The line, from 1; 0 for the whole file.
        package var line: Int
        /// What was wrong.
        package var reason: String
        /// "line N: reason", or the reason.
        package var description: String { line > 0 ? "line \(line): \(reason)" : reason }
    }

    /// The key in `text`.
    package static func parse(_ text: String) -> Result<TSIGKey, Refusal> {
        guard text.utf8.count <= maxBytes else { return .failure(Refusal(line: 0, reason: "longer than \(maxBytes) bytes: not a key file")) }
        var name: String?, algorithm: String?, secret: String?
        var names = 0
        // "\r\n" is one Character in Swift: split on it as on "\n".
        for (number, raw) in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let line = strip(String(raw))
            guard !line.isEmpty else { continue }
            let (key, value) = field(line)
            switch key {
            case "key":
                // Knot: `key:` opens its list; the name is `id:`.
                guard let value, !value.isEmpty else { continue }
                // BIND: key "NAME" {
                guard let quoted = quotedName(value) else {
                    return .failure(Refusal(line: number + 1, reason: "expected key \"NAME\" {"))
                }
                names += 1
                name = quoted
            case "- id", "id":
                names += 1
                name = value.map(unquoted)
            case "algorithm":
                algorithm = value.map(unquoted)
            case "secret":
                secret = value.map(unquoted)
            case "}":
                continue
            default:
                return .failure(Refusal(line: number + 1, reason: "'\(String(line.prefix(40)))' is not part of a TSIG key (BIND's tsig-keygen or Knot's keymgr -t)"))
            }
        }
        guard names <= 1 else { return .failure(Refusal(line: 0, reason: "more than one key: give a file with one")) }
        guard let name, !name.isEmpty else { return .failure(Refusal(line: 0, reason: "no key name (key \"NAME\" or id: NAME)")) }
        guard let algorithmText = algorithm else { return .failure(Refusal(line: 0, reason: "no algorithm")) }
        guard let chosen = TSIGKey.Algorithm(rawValue: algorithmText.lowercased()) else {
            let known = TSIGKey.Algorithm.allCases.map(\.rawValue).joined(separator: ", ")
            return .failure(Refusal(line: 0, reason: "algorithm '\(algorithmText)': use one of \(known)"))
        }
        guard let encoded = secret, !encoded.isEmpty else { return .failure(Refusal(line: 0, reason: "no secret")) }
        guard let bytes = Data(base64Encoded: encoded), !bytes.isEmpty, bytes.count <= maxSecret else {
            return .failure(Refusal(line: 0, reason: "the secret is not base64 of 1 to \(maxSecret) bytes"))
        }
        let lowered = name.lowercased().hasSuffix(".") ? String(name.lowercased().dropLast()) : name.lowercased()
        guard lowered.utf8.count <= 253, lowered.split(separator: ".", omittingEmptySubsequences: false).allSatisfy(isLabel) else {
            return .failure(Refusal(line: 0, reason: "key name '\(name)' is not a DNS name"))
        }
        return .success(TSIGKey(name: lowered, algorithm: chosen, secret: Array(bytes)))
    }

    /// The line without comments, the trailing `;` and outer blanks.
    private static func strip(_ line: String) -> String {
        var text = line
        // A comment starts a line or follows a blank: base64 secrets hold
        // `/`, and two of them side by side are not a comment.
        for marker in ["#", "//"] {
            if let cut = commentStart(of: marker, in: text) { text = String(text[..<cut]) }
        }
        if let open = commentStart(of: "/*", in: text), let close = text[open...].firstRange(of: "*/") {
            text = String(text[..<open] + text[close.upperBound...])
        }
        text = trimmed(text)
        while text.hasSuffix(";") { text = trimmed(text.dropLast()) }
        return text
    }

    /// Where `marker` first starts a comment in `text`: at the start, or after a blank.
    private static func commentStart(of marker: String, in text: String) -> String.Index? {
        var from = text.startIndex
        while let found = text[from...].firstRange(of: marker) {
            if found.lowerBound == text.startIndex || [" ", "\t"].contains(text[text.index(before: found.lowerBound)]) { return found.lowerBound }
            from = found.upperBound
        }
        return nil
    }

    /// `text` without blanks (spaces, tabs, a carriage return) around it.
    private static func trimmed<Text: StringProtocol>(_ text: Text) -> String {
        let blank: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = text.firstIndex(where: { !blank($0) }), let last = text.lastIndex(where: { !blank($0) }) else { return "" }
        return String(text[first...last])
    }

    /// `key value` (BIND) or `key: value` (Knot's YAML): the key and the
    /// rest, trimmed; `}` and `};` are their own key.
    private static func field(_ line: String) -> (String, String?) {
        if line.hasPrefix("}") { return ("}", nil) }
        if let colon = line.firstIndex(of: ":"), !line[..<colon].contains(" ") || line.hasPrefix("- ") {
            return (trimmed(line[..<colon]), trimmed(line[line.index(after: colon)...]))
        }
        guard let space = line.firstIndex(of: " ") else { return (line, nil) }
        return (String(line[..<space]), trimmed(line[line.index(after: space)...]))
    }

    /// `"NAME" {` → NAME.
    private static func quotedName(_ value: String) -> String? {
        guard value.hasSuffix("{") else { return nil }
        let inner = trimmed(value.dropLast())
        guard inner.count >= 2, inner.hasPrefix("\""), inner.hasSuffix("\"") else { return nil }
        return String(inner.dropFirst().dropLast())
    }

    /// A value without surrounding quotes.
    private static func unquoted(_ value: String) -> String {
        value.count >= 2 && value.hasPrefix("\"") && value.hasSuffix("\"") ? String(value.dropFirst().dropLast()) : value
    }

    /// A DNS label: 1 to 63 letters, digits, hyphens or underscores.
    private static func isLabel(_ label: Substring) -> Bool {
        !label.isEmpty && label.utf8.count <= 63 && label.utf8.allSatisfy { byte in
            (byte >= 0x61 && byte <= 0x7a) || (byte >= 0x30 && byte <= 0x39) || byte == 0x2d || byte == 0x5f
        }
    }
}
