/// The words of the agent's notifications. Everything a peer chose (its
/// name, its file names, an invitation's context) is cut to a bounded
/// length, loses its control characters, and is escaped when the server
/// reads markup: nothing a peer sends is ever shown as markup.
package enum NotificationText {
    /// The most characters of a peer's words shown in one place.
    package static let maxPeerText = 80

    /// `text` as it may be shown: control characters (and the bidi
    /// overrides a name could hide an extension with) become spaces, and
    /// it is cut to ``maxPeerText`` characters with an ellipsis.
    package static func peerText(_ text: String) -> String {
        let cleaned = String(String.UnicodeScalarView(text.unicodeScalars.map { scalar in
            scalar.properties.generalCategory == .control || scalar.properties.generalCategory == .format ? " " : scalar
        }))
        guard cleaned.count > maxPeerText else { return cleaned }
        return String(cleaned.prefix(maxPeerText - 1)) + "…"
    }

    /// `text` for a body: escaped (`&`, `<`, `>`) when the server reads
    /// markup (`body-markup`), as it is otherwise.
    package static func body(_ text: String, markup: Bool) -> String {
        guard markup else { return text }
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            default: out.append(character)
            }
        }
        return out
    }

    /// `3 files, 1.5 MiB`, or one file's name and size.
    package static func files(count: Int, bytes: Int64, firstName: String?) -> String {
        if count == 1, let firstName { return "\(peerText(firstName)) (\(ProgressLine.bytes(bytes)))" }
        return "\(count) file\(count == 1 ? "" : "s"), \(ProgressLine.bytes(bytes))"
    }
}
