
/// One resolved service in `avahi-browse -p -r` output: a line
/// `=;IFACE;PROTO;NAME;TYPE;DOMAIN;HOST;ADDRESS;PORT;"k=v" "k=v"`, in which
/// avahi writes a `;` or `\` inside a field as `\059` or `\092`.
package struct AvahiBrowseRecord: Equatable, Sendable {
    /// The interface it was seen on.
    package var interface: String
    /// `IPv4` or `IPv6`.
    package var proto: String
    /// The instance name.
    package var name: String
    /// The service type.
    package var type: String
    /// The host name it points at.
    package var host: String
    /// Its address.
    package var address: String
    /// Its port.
    package var port: UInt16
    /// Its TXT pairs.
    package var txt: [String: String]

    /// The resolved records in `text` (other lines ignored).
    package static func parse(_ text: String) -> [AvahiBrowseRecord] {
        text.split(whereSeparator: \.isNewline).compactMap { line in
            guard line.hasPrefix("=;") else { return nil }
            let fields = line.split(separator: ";", omittingEmptySubsequences: false).map { unescape(String($0)) }
            guard fields.count >= 10, let port = UInt16(fields[8]) else { return nil }
            return AvahiBrowseRecord(interface: fields[1], proto: fields[2], name: fields[3], type: fields[4], host: fields[6],
                                     address: fields[7], port: port, txt: txt(fields[9...].joined(separator: ";")))
        }
    }

    /// `\DDD` (decimal) back to the character.
    private static func unescape(_ field: String) -> String {
        guard field.contains("\\") else { return field }
        var out = "", chars = Array(field), i = 0
        while i < chars.count {
            if chars[i] == "\\", i + 4 <= chars.count,
               let code = Int(String(chars[(i + 1)..<(i + 4)])), let scalar = Unicode.Scalar(code) {
                out.unicodeScalars.append(scalar)
                i += 4
            } else {
                out.append(chars[i])
                i += 1
            }
        }
        return out
    }

    /// `"k=v" "k2=v2"` to pairs.
    private static func txt(_ text: String) -> [String: String] {
        var pairs: [String: String] = [:]
        var current = "", inside = false
        for character in text {
            if character == "\"" {
                if inside, let equals = current.firstIndex(of: "=") {
                    pairs[String(current[..<equals])] = String(current[current.index(after: equals)...])
                }
                inside.toggle()
                current = ""
            } else if inside {
                current.append(character)
            }
        }
        return pairs
    }
}
