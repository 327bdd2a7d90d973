/// peerd's configuration file, in the INI style of `avahi-daemon.conf`:
/// a `[peerd]` section of `key = value` lines, and `[app "NAME"]` sections
/// whose `user = USER` or `group = GROUP` keep an app name for someone
/// (they stand for `app-user = NAME=USER` and `app-group = NAME=GROUP`),
/// and whose `auto-accept = POLICY` is the app's own policy for invitations
/// (`app-auto-accept = NAME=POLICY`). A `[wide-area]` section's `domain`,
/// `update-key`, `server`, `ttl` and `poll` stand for `wide-area`,
/// `dns-update-key`, `dns-server`, `wide-area-ttl` and `wide-area-poll`.
///
/// Rules: UTF-8 (a leading byte-order mark is skipped); lines end in LF or
/// CRLF; `#` or `;` starts a comment at the start of a line or after
/// whitespace (`name = a # note` is `a`; `info = k=v#1` keeps its `#`);
/// spaces around keys and values are dropped. Errors name the line, and
/// show invisible characters as escapes (`\u{200b}`, `\x00`).
/// Every command-line flag has a key of the same name without the dashes;
/// a flag given on the command line overrides the file.
package import PeerProtocol
package enum ConfigFile {
    /// The default path.
    package static let defaultPath = "/etc/peerd/peerd.conf"

    /// Keys that take a value, with the flag each stands for.
    package static let valueKeys: Set<String> = [
        "name", "service-type", "info", "state-dir", "interface", "port", "lane-port", "socket", "max-peers", "max-unverified-peers", "event-history",
        "subscriber-queue", "log-level", "max-message", "inbox-size", "max-sessions", "auto-accept", "auto-connect",
        "pairing-timeout", "group", "max-clients", "max-pending", "connection-rate", "invitation-rate",
        "download-dir", "offer-timeout", "partial-lifetime", "app-user", "app-group", "app-auto-accept",
        "wide-area", "dns-update-key", "dns-server", "wide-area-ttl", "wide-area-poll",
    ]
    /// Keys of the `[wide-area]` section, with the `[peerd]` key each stands for.
    package static let wideAreaKeys: [String: String] = [
        "domain": "wide-area", "update-key": "dns-update-key", "server": "dns-server", "ttl": "wide-area-ttl", "poll": "wide-area-poll",
    ]
    /// Keys of an `[app "NAME"]` section, with the `[peerd]` key each stands for.
    package static let appKeys: [String: String] = ["user": "app-user", "group": "app-group", "auto-accept": "app-auto-accept"]
    /// Keys that are yes/no switches.
    package static let switchKeys: Set<String> = ["public-read", "reset-trust", "allow-local-add"]
    /// Keys that may appear more than once (each adds a value).
    package static let repeatableKeys: Set<String> = ["info", "interface", "app-user", "app-group", "app-auto-accept"]

    /// Splits the file into entries, rejecting anything that is not a
    /// comment, a `[peerd]` header, or `key = value` with a known key.
    package static func entries(_ text: String) throws(UsageError) -> [ConfigFileEntry] {
        var entries: [ConfigFileEntry] = []
        var section: String?
        var appSection: String?
        var appSeen: Set<String> = []
        var seen: Set<String> = []
        let body = text.hasPrefix("\u{FEFF}") ? String(text.dropFirst()) : text
        // "\r\n" is one Character in Swift: both endings split a line.
        for (index, raw) in body.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }).enumerated() {
            let number = index + 1
            let line = trim(withoutComment(raw))
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw UsageError("line \(number): '\(visible(line))' is not a [section] header") }
                let name = trim(line.dropFirst().dropLast())
                if let app = try appName(ofSection: name, line: number) {
                    section = nil
                    appSection = app
                    continue
                }
                guard name == "peerd" || name == "wide-area" else {
                    throw UsageError("line \(number): unknown section [\(visible(name))]; peerd reads [peerd], [wide-area] and [app \"NAME\"]")
                }
                section = name
                appSection = nil
                continue
            }
            if let app = appSection {
                guard let eq = line.firstIndex(of: "=") else { throw UsageError("line \(number): expected key = value, got '\(visible(line))'") }
                let key = trim(line[..<eq]).lowercased()
                guard let standsFor = appKeys[key] else {
                    throw UsageError("line \(number): unknown key '\(visible(key))' in [app \"\(app)\"] (user, group or auto-accept)")
                }
                guard key == "auto-accept" || appSeen.insert(app).inserted else { throw UsageError("line \(number): app '\(app)' is reserved twice") }
                entries.append(ConfigFileEntry(key: standsFor, value: app + "=" + trim(line[line.index(after: eq)...]), line: number))
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw UsageError("line \(number): expected key = value, got '\(visible(line))'") }
            guard section != nil else { throw UsageError("line \(number): '\(visible(line))' comes before the [peerd] section") }
            var key = trim(line[..<eq]).lowercased()
            let value = trim(line[line.index(after: eq)...])
            if section == "wide-area" {
                guard let standsFor = wideAreaKeys[key] else {
                    throw UsageError("line \(number): unknown key '\(visible(key))' in [wide-area] (domain, update-key, server, ttl or poll)")
                }
                key = standsFor
            }
            guard valueKeys.contains(key) || switchKeys.contains(key) else {
                throw UsageError("line \(number): unknown key '\(visible(key))'")
            }
            guard repeatableKeys.contains(key) || seen.insert(key).inserted else {
                throw UsageError("line \(number): '\(key)' is set twice")
            }
            entries.append(ConfigFileEntry(key: key, value: value, line: number))
        }
        return entries
    }

    /// The app of an `[app "NAME"]` header's inside (`app "chat"`), nil for
    /// another section; a bad name is an error naming the line and the rule.
    private static func appName(ofSection header: String, line number: Int) throws(UsageError) -> String? {
        guard header.hasPrefix("app ") || header.hasPrefix("app\t") else { return nil }
        let quoted = trim(header.dropFirst(4))
        guard quoted.count >= 2, quoted.hasPrefix("\""), quoted.hasSuffix("\"") else {
            throw UsageError("line \(number): expected [app \"NAME\"], got [\(visible(header))]")
        }
        let name = String(quoted.dropFirst().dropLast())
        do { return try AppName(name).text } catch { throw UsageError("line \(number): [app \"\(visible(name))\"]: \(error)") }
    }

    /// The command-line arguments an entry stands for.
    package static func arguments(for entry: ConfigFileEntry) throws(UsageError) -> [String] {
        if switchKeys.contains(entry.key) {
            switch entry.value.lowercased() {
            case "yes", "true", "on", "1": return ["--\(entry.key)"]
            case "no", "false", "off", "0": return []
            default: throw UsageError("line \(entry.line): \(entry.key) = '\(entry.value)': expected yes or no")
            }
        }
        return ["--\(entry.key)", entry.value]
    }

    /// The file's bytes as text: a leading byte-order mark is dropped, and
    /// bytes that are not UTF-8 are an error naming their line.
    package static func text(of bytes: [UInt8]) throws(UsageError) -> String {
        let body = bytes.starts(with: [0xEF, 0xBB, 0xBF]) ? Array(bytes.dropFirst(3)) : bytes
        if let text = String(validating: body, as: UTF8.self) { return text }
        var number = 1
        for line in body.split(separator: 0x0A, omittingEmptySubsequences: false) {
            if String(validating: line, as: UTF8.self) == nil { break }
            number += 1
        }
        throw UsageError("line \(number): not UTF-8 (is this a configuration file?)")
    }

    /// Text for an error message: controls, bidi controls and invisible
    /// characters (zero-width and format characters, unusual spaces) shown
    /// as escapes, so what is wrong can be seen and nothing reaches the
    /// terminal raw.
    package static func visible(_ text: some StringProtocol) -> String {
        var out = ""
        for scalar in String(text).unicodeScalars {
            let invisible = scalar.properties.generalCategory == .format
                || (scalar.properties.generalCategory == .spaceSeparator && scalar != " ")
                || scalar.properties.generalCategory == .lineSeparator || scalar.properties.generalCategory == .paragraphSeparator
            if invisible {
                out += "\\u{" + String(scalar.value, radix: 16) + "}"
            } else {
                out += TerminalText.escape(String(scalar))
            }
        }
        return out
    }

    /// The line without its comment: from a `#` or `;` at the start or
    /// after whitespace.
    private static func withoutComment(_ line: some StringProtocol) -> Substring {
        var previousIsSpace = true
        for index in line.indices {
            let character = line[index]
            if (character == "#" || character == ";") && previousIsSpace { return Substring(line[..<index]) }
            previousIsSpace = character.isWhitespace
        }
        return Substring(line)
    }

    private static func trim(_ text: some StringProtocol) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
