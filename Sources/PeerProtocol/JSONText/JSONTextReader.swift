import FoundationEssentials

/// A position in one JSON line, moving forward over a strict subset of
/// JSON: objects, strings without escapes or control characters, whole
/// numbers without a leading zero, and the literals. What it does not take
/// it refuses (nil or false, the position where it was), and the caller
/// then hands the whole line to `JSONDecoder`. The readers built on it
/// (``EventLineReader``, and the daemon's request reader) are pinned
/// against `JSONDecoder`: whatever they read, they read the same.
package struct JSONTextReader {
    private let bytes: [UInt8]
    private var index = 0

    /// A reader at the start of `line`.
    package init(_ line: [UInt8]) {
        bytes = line
    }

    /// Whether only white space is left.
    package var atEnd: Bool {
        mutating get {
            skipSpace()
            return index == bytes.count
        }
    }

    private mutating func skipSpace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        skipSpace()
        guard index < bytes.count, bytes[index] == byte else { return false }
        index += 1
        return true
    }

    /// `{ "key": value, … }`, each value read by `member` (which returns
    /// false to refuse); false when the object is not whole or refused.
    package mutating func object(_ member: (String, inout JSONTextReader) -> Bool) -> Bool {
        guard consume(UInt8(ascii: "{")) else { return false }
        if consume(UInt8(ascii: "}")) { return true }
        repeat {
            guard let key = string(), consume(UInt8(ascii: ":")) else { return false }
            skipSpace()
            guard member(key, &self) else { return false }
        } while consume(UInt8(ascii: ","))
        return consume(UInt8(ascii: "}"))
    }

    /// A literal word (`true`, `null`, `1`) that is not the start of a
    /// longer token.
    package mutating func literal(_ word: StaticString) -> Bool {
        skipSpace()
        let start = index
        let count = word.withUTF8Buffer { $0.count }
        let matches = word.withUTF8Buffer { buffer in
            start + buffer.count <= bytes.count && (0..<buffer.count).allSatisfy { bytes[start + $0] == buffer[$0] }
        }
        guard matches else { return false }
        if index + count < bytes.count, !Self.ends(bytes[index + count]) { return false }
        index += count
        return true
    }

    /// `true` or `false`; nil otherwise.
    package mutating func bool() -> Bool? {
        if literal("true") { return true }
        if literal("false") { return false }
        return nil
    }

    /// A string with no escapes and no control characters, as valid
    /// UTF-8; nil (position unchanged) otherwise.
    package mutating func string() -> String? {
        skipSpace()
        guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { return nil }
        var end = index + 1
        var ascii = true
        while end < bytes.count, bytes[end] != UInt8(ascii: "\"") {
            guard bytes[end] >= 0x20, bytes[end] != UInt8(ascii: "\\") else { return nil }
            ascii = ascii && bytes[end] < 0x80
            end += 1
        }
        guard end < bytes.count else { return nil }
        let start = index + 1
        // ASCII is valid UTF-8 as it is; other text is checked.
        let text = bytes.withUnsafeBufferPointer { buffer -> String? in
            let span = UnsafeBufferPointer(rebasing: buffer[start..<end])
            return ascii ? String(decoding: span, as: UTF8.self) : String(validating: span, as: UTF8.self)
        }
        guard let text else { return nil }
        index = end + 1
        return text
    }

    /// A whole number: an optional minus, then digits without a leading
    /// zero, ending the token; nil (position unchanged) for a fraction, an
    /// exponent or more than `UInt64` holds.
    package mutating func integer() -> (negative: Bool, magnitude: UInt64)? {
        skipSpace()
        var i = index
        let negative = i < bytes.count && bytes[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let first = i
        var value: UInt64 = 0
        while i < bytes.count, bytes[i] >= UInt8(ascii: "0"), bytes[i] <= UInt8(ascii: "9") {
            let (times, overflowTimes) = value.multipliedReportingOverflow(by: 10)
            let (sum, overflowSum) = times.addingReportingOverflow(UInt64(bytes[i] - UInt8(ascii: "0")))
            guard !overflowTimes, !overflowSum else { return nil }
            value = sum
            i += 1
        }
        guard i > first, !(bytes[first] == UInt8(ascii: "0") && i - first > 1) else { return nil }
        guard i == bytes.count || Self.ends(bytes[i]) else { return nil }
        index = i
        return (negative, value)
    }

    /// A whole number ≥ 0 that fits `T`; nil otherwise.
    package mutating func natural<T: FixedWidthInteger>(_ type: T.Type) -> T? {
        let start = index
        guard let number = integer(), !number.negative, let value = T(exactly: number.magnitude) else {
            index = start
            return nil
        }
        return value
    }

    /// A signed whole number that fits `Int64`; nil otherwise.
    package mutating func int64() -> Int64? {
        let start = index
        guard let number = integer() else { return nil }
        if !number.negative, let value = Int64(exactly: number.magnitude) { return value }
        if number.negative, number.magnitude <= UInt64(Int64.max) + 1 { return Int64(truncatingIfNeeded: 0 &- number.magnitude) }
        index = start
        return nil
    }

    /// A UUID string in either case (`8-4-4-4-12` hex digits); nil otherwise.
    package mutating func uuid() -> UUID? {
        let start = index
        guard let text = string(), let value = Self.uuid(Array(text.utf8)) else {
            index = start
            return nil
        }
        return value
    }

    /// A date as the `.iso8601` strategy writes it, `"2026-12-02T20:09:36Z"`
    /// exactly, for years 1970–9999; nil for any other form.
    package mutating func date() -> Date? {
        let start = index
        guard let text = string(), let value = Self.date(Array(text.utf8)) else {
            index = start
            return nil
        }
        return value
    }

    private static func uuid(_ text: [UInt8]) -> UUID? {
        guard text.count == 36 else { return nil }
        var bytes = [UInt8](repeating: 0, count: 16)
        var out = 0, i = 0
        while i < 36 {
            if i == 8 || i == 13 || i == 18 || i == 23 {
                guard text[i] == UInt8(ascii: "-") else { return nil }
                i += 1
                continue
            }
            guard let high = hexValue(text[i]), let low = hexValue(text[i + 1]) else { return nil }
            bytes[out] = high << 4 | low
            out += 1
            i += 2
        }
        return UUID(uuid: (bytes[0], bytes[1], bytes[2], bytes[3], bytes[4], bytes[5], bytes[6], bytes[7],
                           bytes[8], bytes[9], bytes[10], bytes[11], bytes[12], bytes[13], bytes[14], bytes[15]))
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }

    private static func date(_ text: [UInt8]) -> Date? {
        // YYYY-MM-DDTHH:MM:SSZ
        guard text.count == 20, text[4] == UInt8(ascii: "-"), text[7] == UInt8(ascii: "-"), text[10] == UInt8(ascii: "T"),
              text[13] == UInt8(ascii: ":"), text[16] == UInt8(ascii: ":"), text[19] == UInt8(ascii: "Z") else { return nil }
        func digits(_ from: Int, _ count: Int) -> Int? {
            var value = 0
            for i in from..<(from + count) {
                guard text[i] >= UInt8(ascii: "0"), text[i] <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int(text[i] - UInt8(ascii: "0"))
            }
            return value
        }
        guard let year = digits(0, 4), let month = digits(5, 2), let day = digits(8, 2),
              let hour = digits(11, 2), let minute = digits(14, 2), let second = digits(17, 2),
              let civil = CivilTime(year: year, month: month, day: day, hour: hour, minute: minute, second: second) else { return nil }
        return Date(timeIntervalSince1970: Double(civil.secondsSince1970))
    }

    /// Whether `byte` may follow a number or a literal.
    private static func ends(_ byte: UInt8) -> Bool {
        byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
