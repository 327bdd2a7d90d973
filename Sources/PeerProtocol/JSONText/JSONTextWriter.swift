import FoundationEssentials

/// Writes JSON text byte for byte as the control protocol's encoder does
/// (`JSONEncoder` with sorted keys, unescaped slashes and ISO 8601 dates),
/// without its cost: no tree of boxed values, no key sorting at run time,
/// no generic metadata per call. A profile of 100-byte `send`s showed
/// `JSONEncoder` taking more than half of the receiving daemon's time for
/// each `message` event (issue 25, point 4).
///
/// The caller writes members in sorted key order; that order and every
/// escape are pinned against `JSONEncoder` by JSONTextTests, so the bytes a
/// client reads are the same whichever path wrote them.
package struct JSONTextWriter {
    /// The text written so far.
    package private(set) var bytes: [UInt8]
    /// Whether the object or array being written has nothing in it yet
    /// (no comma due before the next member or element).
    private var atContainerStart = false

    /// An empty writer with room for `capacity` bytes.
    package init(capacity: Int = 256) {
        bytes = []
        bytes.reserveCapacity(capacity)
    }

    /// Opens an object: `{`.
    package mutating func openObject() { open(UInt8(ascii: "{")) }

    /// Closes the object: `}`. The enclosing container, if any, now holds something.
    package mutating func closeObject() { close(UInt8(ascii: "}")) }

    /// Opens an array: `[`.
    package mutating func openArray() { open(UInt8(ascii: "[")) }

    /// Closes the array: `]`.
    package mutating func closeArray() { close(UInt8(ascii: "]")) }

    /// Starts an array element: a comma unless it is the first.
    package mutating func element() { separate() }

    /// Starts a member: a comma unless it is the first, then `"key":`.
    /// Keys are plain ASCII names that need no escape.
    package mutating func key(_ key: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        key.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
    }

    private mutating func open(_ bracket: UInt8) {
        bytes.append(bracket)
        atContainerStart = true
    }

    private mutating func close(_ bracket: UInt8) {
        bytes.append(bracket)
        atContainerStart = false
    }

    private mutating func separate() {
        if !atContainerStart { bytes.append(UInt8(ascii: ",")) }
        atContainerStart = false
    }

    /// `null`.
    package mutating func null() {
        bytes.append(contentsOf: [0x6E, 0x75, 0x6C, 0x6C])
    }

    /// `true` or `false`.
    package mutating func bool(_ value: Bool) {
        if value {
            bytes.append(contentsOf: [0x74, 0x72, 0x75, 0x65])
        } else {
            bytes.append(contentsOf: [0x66, 0x61, 0x6C, 0x73, 0x65])
        }
    }

    /// A whole number in decimal.
    package mutating func integer(_ value: some FixedWidthInteger) {
        if value < 0 {
            bytes.append(UInt8(ascii: "-"))
            unsigned(value.magnitude)
        } else {
            unsigned(value.magnitude)
        }
    }

    private mutating func unsigned(_ value: some FixedWidthInteger & UnsignedInteger) {
        guard var n = UInt64(exactly: value) else {
            bytes.append(contentsOf: String(value).utf8)
            return
        }
        // At most 20 digits, written backwards into scratch space.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { buffer in
            var i = 20
            repeat {
                i -= 1
                buffer[i] = UInt8(ascii: "0") + UInt8(n % 10)
                n /= 10
            } while n > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[i..<20]))
        }
    }

    /// A string, quoted and escaped: `"` and `\` by a backslash, the
    /// control characters below 0x20 as `\b \f \n \r \t` or `\u00XX`,
    /// everything else (slashes and all non-ASCII) as it is.
    package mutating func string(_ value: String) {
        bytes.append(UInt8(ascii: "\""))
        var text = value
        text.withUTF8 { utf8 in
            var start = 0
            for i in 0..<utf8.count {
                let byte = utf8[i]
                guard byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\") else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<i]))
                start = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(byte)
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                    bytes.append(Self.hex[Int(byte >> 4)])
                    bytes.append(Self.hex[Int(byte & 0x0F)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[start..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let hex: [UInt8] = Array("0123456789abcdef".utf8)

    /// A UUID as its upper-case string, as `UUID`'s own encoding writes it.
    package mutating func uuid(_ value: UUID) {
        bytes.append(UInt8(ascii: "\""))
        withUnsafeBytes(of: value.uuid) { raw in
            for (i, byte) in raw.enumerated() {
                if i == 4 || i == 6 || i == 8 || i == 10 { bytes.append(UInt8(ascii: "-")) }
                bytes.append(Self.upperHex[Int(byte >> 4)])
                bytes.append(Self.upperHex[Int(byte & 0x0F)])
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }

    private static let upperHex: [UInt8] = Array("0123456789ABCDEF".utf8)

    /// A date as ISO 8601 in UTC to the whole second,
    /// `"2026-12-02T20:09:36Z"`: what the `.iso8601` strategy writes.
    package mutating func date(_ value: Date) {
        guard let civil = CivilTime(value.timeIntervalSince1970) else {
            // Outside years 1970–9999: the encoder's own formatter.
            string(value.formatted(.iso8601))
            return
        }
        bytes.append(UInt8(ascii: "\""))
        fixed(civil.year, width: 4)
        bytes.append(UInt8(ascii: "-"))
        fixed(civil.month, width: 2)
        bytes.append(UInt8(ascii: "-"))
        fixed(civil.day, width: 2)
        bytes.append(UInt8(ascii: "T"))
        fixed(civil.hour, width: 2)
        bytes.append(UInt8(ascii: ":"))
        fixed(civil.minute, width: 2)
        bytes.append(UInt8(ascii: ":"))
        fixed(civil.second, width: 2)
        bytes.append(UInt8(ascii: "Z"))
        bytes.append(UInt8(ascii: "\""))
    }

    private mutating func fixed(_ value: Int, width: Int) {
        var divisor = 1
        for _ in 1..<width { divisor *= 10 }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor % 10))
            rest %= divisor
            divisor /= 10
        }
    }

    /// Ends the line: `\n`.
    package mutating func newline() {
        bytes.append(UInt8(ascii: "\n"))
    }
}
