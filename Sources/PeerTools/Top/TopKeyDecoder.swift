
/// Turns the bytes a raw terminal sends into ``TopKey``s: arrows and
/// paging keys in both their CSI (`ESC [ A`) and SS3 (`ESC O A`) forms,
/// Ctrl keys, and UTF-8 text. A lone ESC at the end of a read is the Esc
/// key; an escape sequence split across reads is kept until it completes
/// (at most 16 bytes, so garbage cannot pile up).
package struct TopKeyDecoder: Sendable {
    private var pending: [UInt8] = []

    /// A decoder with nothing pending.
    package init() {}

    /// The keys in `bytes` (one read's worth).
    package mutating func feed(_ bytes: [UInt8]) -> [TopKey] {
        pending += bytes
        var keys: [TopKey] = []
        var i = 0
        while i < pending.count {
            let byte = pending[i]
            switch byte {
            case 0x1B:
                guard i + 1 < pending.count else {
                    // ESC alone at the end of the read: the Esc key.
                    keys.append(.escape)
                    i += 1
                    continue
                }
                let next = pending[i + 1]
                guard next == UInt8(ascii: "[") || next == UInt8(ascii: "O") else {
                    keys.append(.escape)
                    i += 1
                    continue
                }
                // A sequence: parameters, then a final byte in 0x40...0x7E.
                var j = i + 2
                while j < pending.count, !(0x40...0x7E).contains(pending[j]) { j += 1 }
                guard j < pending.count else {
                    if pending.count - i > 16 { i = pending.count }   // no final byte in sight: drop it
                    pending.removeFirst(i)
                    return keys
                }
                if let key = Self.sequence(Array(pending[(i + 2)..<j]), final: pending[j]) { keys.append(key) }
                i = j + 1
            case 0x0D, 0x0A: keys.append(.enter); i += 1
            case 0x7F, 0x08: keys.append(.backspace); i += 1
            case 0x09: keys.append(.tab); i += 1
            case 0x0C: keys.append(.redraw); i += 1
            case 0x03: keys.append(.interrupt); i += 1
            case 0x00..<0x20: i += 1
            default:
                let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
                guard i + length <= pending.count else {
                    pending.removeFirst(i)
                    return keys
                }
                if let text = String(validating: pending[i..<(i + length)], as: UTF8.self), let character = text.first {
                    keys.append(.character(character))
                }
                i += length
            }
        }
        pending.removeAll(keepingCapacity: true)
        return keys
    }

    private static func sequence(_ parameters: [UInt8], final: UInt8) -> TopKey? {
        switch final {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch String(decoding: parameters, as: UTF8.self) {
            case "5": return .pageUp
            case "6": return .pageDown
            case "1", "7": return .home
            case "4", "8": return .end
            default: return nil
            }
        default: return nil
        }
    }
}
