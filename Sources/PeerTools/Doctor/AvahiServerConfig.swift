
/// The interface settings of avahi-daemon.conf's `[server]` section, which
/// decide where Avahi (and so peerd) can see and be seen.
package struct AvahiServerConfig: Equatable, Sendable {
    /// `allow-interfaces`: when set, Avahi uses only these.
    package var allow: [String]?
    /// `deny-interfaces`: never used.
    package var deny: [String] = []
    /// `use-ipv4` / `use-ipv6` (both on unless set to no).
    package var ipv4 = true, ipv6 = true

    /// Reads the file's text (comments, other sections and bad lines ignored).
    package init(parsing text: String) {
        var section = ""
        for raw in text.split(whereSeparator: \.isNewline) {
            let line = DoctorText.trim(raw)
            if line.hasPrefix("#") || line.hasPrefix(";") || line.isEmpty { continue }
            if line.hasPrefix("[") { section = line.lowercased(); continue }
            guard section == "[server]", let equals = line.firstIndex(of: "=") else { continue }
            let key = DoctorText.trim(line[..<equals]).lowercased()
            let value = DoctorText.trim(line[line.index(after: equals)...])
            let list = value.split(separator: ",").map { DoctorText.trim($0) }.filter { !$0.isEmpty }
            switch key {
            case "allow-interfaces": allow = list
            case "deny-interfaces": deny = list
            case "use-ipv4": ipv4 = value.lowercased() != "no"
            case "use-ipv6": ipv6 = value.lowercased() != "no"
            default: break
            }
        }
    }

    /// Why Avahi leaves `interface` out, or nil when it uses it.
    package func excludes(_ interface: String) -> String? {
        if deny.contains(interface) { return "deny-interfaces lists \(interface)" }
        if let allow, !allow.isEmpty, !allow.contains(interface) { return "allow-interfaces is \(allow.joined(separator: ",")), without \(interface)" }
        return nil
    }
}
