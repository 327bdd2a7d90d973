import FoundationEssentials
import PeerProtocol

/// Encodes and decodes the control protocol's JSON lines: sorted keys,
/// ISO 8601 dates, one object per line ending in `\n`.
public enum JSONLines {
    /// Encodes `value` as one line, newline included. Values with a
    /// hand-written path (``JSONTextEncodable``) skip `JSONEncoder`; the
    /// bytes are the same either way.
    public static func encode(_ value: some Encodable) throws -> [UInt8] {
        if let fast = value as? any JSONTextEncodable {
            var writer = JSONTextWriter()
            if fast.writeJSONText(to: &writer) {
                writer.newline()
                return writer.bytes
            }
        }
        return try encodeWithFoundation(value)
    }

    /// Encodes a value whose type has the hand-written path, known at
    /// compile time: the same bytes as ``encode(_:)-(Encodable)`` without
    /// its cast, which cost a receiving daemon 2% of its time once an
    /// event (issue 25, point 4).
    package static func encode(_ value: some JSONTextEncodable) throws -> [UInt8] {
        var writer = JSONTextWriter()
        if value.writeJSONText(to: &writer) {
            writer.newline()
            return writer.bytes
        }
        return try encodeWithFoundation(value)
    }

    /// Encodes `value` as one line with `JSONEncoder` alone: the reference
    /// the hand-written path is tested against.
    public static func encodeWithFoundation(_ value: some Encodable) throws -> [UInt8] {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        encoder.dateEncodingStrategy = .iso8601
        var bytes = [UInt8](try encoder.encode(value))
        bytes.append(UInt8(ascii: "\n"))
        return bytes
    }

    /// Encodes `value` readably (indented), for people.
    public static func encodePretty(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        encoder.dateEncodingStrategy = .iso8601
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    /// Decodes one line (without its newline).
    /// Types with a hand-written reader (``JSONTextDecodable``: event
    /// lines) try it first; it reads a line as `JSONDecoder` does, faster.
    public static func decode<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws -> T {
        if let fast = type as? any JSONTextDecodable.Type, let value = fast.readJSONText(Array(line)) as? T { return value }
        return try decodeWithFoundation(type, from: line)
    }

    /// Decodes one line with `JSONDecoder` alone: the reference the
    /// hand-written readers are tested against.
    public static func decodeWithFoundation<T: Decodable>(_ type: T.Type, from line: some Collection<UInt8>) throws -> T {
        let decoder = JSONDecoder()
        decoder.dateDecodingStrategy = .iso8601
        return try decoder.decode(type, from: Data(line))
    }
}
