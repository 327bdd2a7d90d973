/// The members of a JSON object, as raw JSON text per key, found by a
/// small scanner (strings, escapes and nesting respected; values are not
/// interpreted). For checks a decoder cannot make, such as telling `1`
/// from `1.0`. Keys with escapes are compared as written.
enum JSONMembers {
    /// The top-level members of the object in `bytes`, or nil when `bytes`
    /// is not one well-nested JSON object.
    static func of(_ bytes: [UInt8]) -> [String: String]? {
        var i = 0
        skipSpace(bytes, &i)
        guard i < bytes.count, bytes[i] == UInt8(ascii: "{") else { return nil }
        i += 1
        var members: [String: String] = [:]
        while true {
            skipSpace(bytes, &i)
            guard i < bytes.count else { return nil }
            if bytes[i] == UInt8(ascii: "}") { return members }
            if bytes[i] == UInt8(ascii: ",") { i += 1; continue }
            guard bytes[i] == UInt8(ascii: "\""), let keyEnd = endOfString(bytes, i) else { return nil }
            let key = String(decoding: bytes[(i + 1)..<(keyEnd - 1)], as: UTF8.self)
            i = keyEnd
            skipSpace(bytes, &i)
            guard i < bytes.count, bytes[i] == UInt8(ascii: ":") else { return nil }
            i += 1
            skipSpace(bytes, &i)
            guard let valueEnd = endOfValue(bytes, i) else { return nil }
            members[key] = String(decoding: bytes[i..<valueEnd], as: UTF8.self)
            i = valueEnd
        }
    }

    private static func skipSpace(_ bytes: [UInt8], _ i: inout Int) {
        while i < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
    }

    /// The index just past the string starting at `start` (a quote).
    private static func endOfString(_ bytes: [UInt8], _ start: Int) -> Int? {
        var i = start + 1
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "\\") { i += 2; continue }
            if bytes[i] == UInt8(ascii: "\"") { return i + 1 }
            i += 1
        }
        return nil
    }

    /// The index just past the value starting at `start`.
    private static func endOfValue(_ bytes: [UInt8], _ start: Int) -> Int? {
        guard start < bytes.count else { return nil }
        switch bytes[start] {
        case UInt8(ascii: "\""):
            return endOfString(bytes, start)
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            var i = start
            while i < bytes.count {
                switch bytes[i] {
                case UInt8(ascii: "\""):
                    guard let end = endOfString(bytes, i) else { return nil }
                    i = end
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["): depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
                i += 1
            }
            return nil
        default:
            var i = start
            while i < bytes.count, ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(bytes[i]) { i += 1 }
            return i > start ? i : nil
        }
    }
}
