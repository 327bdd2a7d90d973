/// A DNS name as a list of labels (RFC 1035 §3.1), so an instance name
/// such as `Office 2.1` stays one label however many dots or spaces it
/// holds (RFC 6763 §4.3). ldns reads and writes the packets; this type
/// turns names into ldns's presentation text and reads the uncompressed
/// wire form ldns hands back.
package struct DNSName: Hashable, Sendable, CustomStringConvertible {
    /// The longest name, in wire bytes (RFC 1035 §2.3.4).
    package static let maxWireBytes = 255
    /// The longest label, in bytes.
    package static let maxLabelBytes = 63

    /// The labels, first (leftmost) first, without the root.
    package private(set) var labels: [[UInt8]]

    /// A name of `labels`; nil when a label is empty or too long, or the
    /// whole is too long.
    package init?(labels: [[UInt8]]) {
        guard labels.allSatisfy({ !$0.isEmpty && $0.count <= Self.maxLabelBytes }),
              labels.reduce(1, { $0 + 1 + $1.count }) <= Self.maxWireBytes else { return nil }
        self.labels = labels
    }

    /// A name of text labels (each UTF-8 encoded).
    package init?(_ labels: [String]) {
        self.init(labels: labels.map { Array($0.utf8) })
    }

    /// A name from dotted text with no escapes (`_peerd._tcp.example.org`,
    /// a trailing dot allowed): the form of names peerd's configuration takes.
    package init?(dotted text: String) {
        let body = text.hasSuffix(".") ? String(text.dropLast()) : text
        guard !body.isEmpty else { return nil }
        self.init(body.split(separator: ".", omittingEmptySubsequences: false).map(String.init))
    }

    /// A name from its uncompressed wire form (length-prefixed labels
    /// ending in the root's zero), as ldns holds a name's rdata; nil for
    /// anything else.
    package init?(wire bytes: [UInt8]) {
        var labels: [[UInt8]] = []
        var index = 0
        while index < bytes.count {
            let length = Int(bytes[index])
            if length == 0 { break }
            // A compression pointer (0xC0) or a reserved label type has no place here.
            guard length <= Self.maxLabelBytes, index + 1 + length <= bytes.count else { return nil }
            labels.append(Array(bytes[(index + 1)..<(index + 1 + length)]))
            index += 1 + length
        }
        guard index == bytes.count - 1 else { return nil }
        self.init(labels: labels)
    }

    /// This name followed by `suffix` (`instance` + `_peerd._tcp.example.org`).
    package func appending(_ suffix: DNSName) -> DNSName? {
        DNSName(labels: labels + suffix.labels)
    }

    /// Whether the name ends with `suffix`, label by label, ignoring ASCII case.
    package func hasSuffix(_ suffix: DNSName) -> Bool {
        guard suffix.labels.count <= labels.count else { return false }
        return zip(labels.suffix(suffix.labels.count), suffix.labels).allSatisfy { Self.sameLabel($0, $1) }
    }

    /// Whether two names are the same, ignoring ASCII case (RFC 4343).
    package func matches(_ other: DNSName) -> Bool {
        labels.count == other.labels.count && zip(labels, other.labels).allSatisfy { Self.sameLabel($0, $1) }
    }

    /// The first label as text, when it is UTF-8.
    package var firstLabel: String? {
        labels.first.flatMap { String(validating: $0, as: UTF8.self) }
    }

    /// The name in presentation form with a trailing dot, every byte
    /// outside letters, digits, `-` and `_` written `\DDD`, so ldns's
    /// parser reads back exactly these labels.
    package var presentation: String {
        var text = ""
        for label in labels {
            for byte in label {
                let plain = (0x61...0x7a).contains(byte) || (0x41...0x5a).contains(byte) || (0x30...0x39).contains(byte) || byte == 0x2d || byte == 0x5f
                if plain {
                    text.unicodeScalars.append(Unicode.Scalar(byte))
                } else {
                    let digits = String(byte)
                    text += "\\" + String(repeating: "0", count: 3 - digits.count) + digits
                }
            }
            text += "."
        }
        return text.isEmpty ? "." : text
    }

    /// Readable dotted text, for logs and status (labels that are not
    /// UTF-8 are shown through their presentation escapes).
    package var description: String {
        labels.map { String(validating: $0, as: UTF8.self) ?? "?" }.joined(separator: ".")
    }

    private static func sameLabel(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        a.count == b.count && zip(a, b).allSatisfy { lower($0) == lower($1) }
    }

    private static func lower(_ byte: UInt8) -> UInt8 { (0x41...0x5a).contains(byte) ? byte + 0x20 : byte }
}
