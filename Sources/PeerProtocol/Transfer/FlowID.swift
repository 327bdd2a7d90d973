/// The 16 random bytes that name one transfer or stream on the wire
/// (docs/protocol.md §8). The sender of an offer, or the opener of a
/// stream, picks it; it stays the same when a transfer resumes on a later
/// session, which is how the receiver finds what it already has.
package struct FlowID: Hashable, Sendable, CustomStringConvertible {
    /// The length on the wire.
    package static let length = 16

    /// The bytes.
    package let bytes: [UInt8]

    /// Wraps exactly ``length`` bytes; nil otherwise.
    package init?(bytes: [UInt8]) {
        guard bytes.count == Self.length else { return nil }
        self.bytes = bytes
    }

    /// Parses 32 hexadecimal digits (how clients name a transfer).
    package init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 2 * Self.length else { return nil }
        var out: [UInt8] = []
        for index in stride(from: 0, to: digits.count, by: 2) {
            guard let high = Self.nibble(digits[index]), let low = Self.nibble(digits[index + 1]) else { return nil }
            out.append(high << 4 | low)
        }
        bytes = out
    }

    /// 32 lowercase hexadecimal digits.
    package var description: String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes { out += [digits[Int(byte >> 4)], digits[Int(byte & 0xF)]] }
        return String(decoding: out, as: UTF8.self)
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
