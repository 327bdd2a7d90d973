/// peerd's configuration file, in the INI style of `avahi-daemon.conf`:
/// a `[peerd]` section of `key = value` lines; `#` and `;` start comments.
/// Every command-line flag has a key of the same name without the dashes;
/// a flag given on the command line overrides the file.
public enum ConfigFile {
    /// The default path.
    public static let defaultPath = "/etc/peerd/peerd.conf"

    /// Keys that take a value, with the flag each stands for.
    public static let valueKeys: Set<String> = [
        "name", "service-type", "info", "state-dir", "interface", "port", "socket", "max-peers", "max-unverified-peers", "event-history",
        "subscriber-queue", "log-level", "max-message", "max-sessions", "auto-accept", "auto-connect",
        "pairing-timeout", "group", "max-clients", "max-pending", "connection-rate", "invitation-rate",
    ]
    /// Keys that are yes/no switches.
    public static let switchKeys: Set<String> = ["public-read", "reset-trust"]
    /// Keys that may appear more than once (each adds a value).
    public static let repeatableKeys: Set<String> = ["info", "interface"]

    /// Splits the file into entries, rejecting anything that is not a
    /// comment, a `[peerd]` header, or `key = value` with a known key.
    public static func entries(_ text: String) throws(UsageError) -> [ConfigFileEntry] {
        var entries: [ConfigFileEntry] = []
        var section: String?
        var seen: Set<String> = []
        for (index, raw) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let number = index + 1
            let line = trim(raw)
            if line.isEmpty || line.hasPrefix("#") || line.hasPrefix(";") { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]") else { throw UsageError("line \(number): '\(line)' is not a [section] header") }
                let name = trim(line.dropFirst().dropLast())
                guard name == "peerd" else { throw UsageError("line \(number): unknown section [\(name)]; peerd reads [peerd]") }
                section = name
                continue
            }
            guard let eq = line.firstIndex(of: "=") else { throw UsageError("line \(number): expected key = value, got '\(line)'") }
            guard section != nil else { throw UsageError("line \(number): '\(line)' comes before the [peerd] section") }
            let key = trim(line[..<eq]).lowercased()
            let value = trim(line[line.index(after: eq)...])
            guard valueKeys.contains(key) || switchKeys.contains(key) else {
                throw UsageError("line \(number): unknown key '\(key)'")
            }
            guard repeatableKeys.contains(key) || seen.insert(key).inserted else {
                throw UsageError("line \(number): '\(key)' is set twice")
            }
            entries.append(ConfigFileEntry(key: key, value: value, line: number))
        }
        return entries
    }

    /// The command-line arguments an entry stands for.
    public static func arguments(for entry: ConfigFileEntry) throws(UsageError) -> [String] {
        if switchKeys.contains(entry.key) {
            switch entry.value.lowercased() {
            case "yes", "true", "on", "1": return ["--\(entry.key)"]
            case "no", "false", "off", "0": return []
            default: throw UsageError("line \(entry.line): \(entry.key) = '\(entry.value)': expected yes or no")
            }
        }
        return ["--\(entry.key)", entry.value]
    }

    private static func trim(_ text: some StringProtocol) -> String {
        String(text.drop(while: \.isWhitespace).reversed().drop(while: \.isWhitespace).reversed())
    }
}
