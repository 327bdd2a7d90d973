/// Reads the request lines scripts send by the thousand (`send` with a
/// peer and data, `take`, `channel`, …) without `JSONDecoder`, which a
/// profile of 100-byte `send`s showed costing a quarter of the daemon's
/// time (issue 25, point 4).
///
/// It covers a strict subset of JSON: the members `v` (the integer 1),
/// `id`, `method` and `params`, each at most once; parameters that are
/// strings without escapes, booleans, whole numbers or `null`. Any other
/// line (an escape, a float, an array, an unknown member, a wrong type, a
/// broken line) gets nil, and the caller goes the full way: the
/// ``ControlRequestCheck`` and `JSONDecoder`. So every answer, error or
/// not, is what the full way gives; ControlRequestReaderTests pins that
/// over a table of lines and their mutations.
public enum ControlRequestReader {
    /// The request in `line` (without its newline), or nil when the line
    /// is not in the covered subset.
    public static func read(_ line: [UInt8]) -> ControlRequest? {
        var cursor = Cursor(bytes: line)
        var v: Int?, id: RequestID?, method: String?, params: ControlParams?, sawParams = false
        let complete = cursor.object { key, cursor in
            switch key {
            case "v":
                guard v == nil, cursor.literal("1") else { return false }
                v = 1
            case "id":
                guard id == nil else { return false }
                if let text = cursor.string() {
                    id = .string(text)
                } else if let number = cursor.integer(), let value = Self.int64(number) {
                    id = .number(value)
                } else {
                    return false
                }
            case "method":
                guard method == nil, let text = cursor.string() else { return false }
                method = text
            case "params":
                guard !sawParams else { return false }
                sawParams = true
                if cursor.literal("null") { return true }
                guard let read = readParams(&cursor) else { return false }
                params = read
            default:
                return false
            }
            return true
        }
        guard complete, cursor.atEnd, v != nil, let id, let method else { return nil }
        var request = ControlRequest(id: id, method: .status, params: params)
        request.method = method
        return request
    }

    /// A signed whole number as `Int64`, nil when it does not fit.
    private static func int64(_ number: (negative: Bool, magnitude: UInt64)) -> Int64? {
        guard number.negative else { return Int64(exactly: number.magnitude) }
        guard number.magnitude <= UInt64(Int64.max) + 1 else { return nil }
        return Int64(truncatingIfNeeded: 0 &- number.magnitude)
    }

    private static func readParams(_ cursor: inout Cursor) -> ControlParams? {
        var params = ControlParams()
        var seen: UInt32 = 0
        let complete = cursor.object { key, cursor in
            guard let field = Field(key), seen & field.bit == 0 else { return false }
            seen |= field.bit
            if cursor.literal("null") { return true }
            switch field {
            case .peer, .context, .contextData, .invitation, .data, .pairing, .code, .transfer, .name, .address, .app:
                guard let text = cursor.string() else { return false }
                switch field {
                case .peer: params.peer = text
                case .context: params.context = text
                case .contextData: params.contextData = text
                case .invitation: params.invitation = text
                case .data: params.data = text
                case .pairing: params.pairing = text
                case .code: params.code = text
                case .transfer: params.transfer = text
                case .name: params.name = text
                case .address: params.address = text
                default: params.app = text
                }
            case .queue, .take, .more, .all, .receive, .opened:
                let flag: Bool
                if cursor.literal("true") { flag = true } else if cursor.literal("false") { flag = false } else { return false }
                switch field {
                case .queue: params.queue = flag
                case .take: params.take = flag
                case .more: params.more = flag
                case .all: params.all = flag
                case .receive: params.receive = flag
                default: params.opened = flag
                }
            case .since, .count, .max, .offset, .port:
                guard let number = cursor.integer(), !number.negative else { return false }
                if field == .since {
                    params.since = number.magnitude
                    return true
                }
                guard let value = Int(exactly: number.magnitude) else { return false }
                switch field {
                case .count: params.count = value
                case .max: params.max = value
                case .offset: params.offset = value
                default: params.port = value
                }
            }
            return true
        }
        return complete ? params : nil
    }

    /// The parameters the reader covers, by their JSON kind; the others
    /// (`timeout`, `files`, `accept`, `peers`, `info`) go the full way.
    private enum Field: Int {
        case peer, context, contextData, invitation, data, pairing, code, transfer, name, address, app
        case queue, take, more, all, receive, opened
        case since, count, max, offset, port

        /// The field named `key`, if covered.
        init?(_ key: String) {
            switch key {
            case "peer": self = .peer
            case "data": self = .data
            case "app": self = .app
            case "queue": self = .queue
            case "take": self = .take
            case "count": self = .count
            case "since": self = .since
            case "context": self = .context
            case "contextData": self = .contextData
            case "invitation": self = .invitation
            case "pairing": self = .pairing
            case "code": self = .code
            case "transfer": self = .transfer
            case "name": self = .name
            case "address": self = .address
            case "more": self = .more
            case "all": self = .all
            case "receive": self = .receive
            case "opened": self = .opened
            case "max": self = .max
            case "offset": self = .offset
            case "port": self = .port
            default: return nil
            }
        }

        /// Its bit in the set of fields seen (each may come once).
        var bit: UInt32 { 1 << UInt32(rawValue) }
    }

    /// A position in a line, moving forward over the covered subset.
    private struct Cursor {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool {
            mutating get {
                skipSpace()
                return index == bytes.count
            }
        }

        mutating func skipSpace() {
            while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x09 || bytes[index] == 0x0A || bytes[index] == 0x0D { index += 1 }
        }

        mutating func consume(_ byte: UInt8) -> Bool {
            skipSpace()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        /// `{ "key": value, … }`, each value read by `member`; false when
        /// the object is not whole or `member` refuses.
        mutating func object(_ member: (String, inout Cursor) -> Bool) -> Bool {
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
        mutating func literal(_ word: StaticString) -> Bool {
            skipSpace()
            let start = index
            let matches = word.withUTF8Buffer { buffer in
                start + buffer.count <= bytes.count && (0..<buffer.count).allSatisfy { bytes[start + $0] == buffer[$0] }
            }
            guard matches else { return false }
            let count = word.withUTF8Buffer { $0.count }
            if index + count < bytes.count, !Cursor.ends(bytes[index + count]) { return false }
            index += count
            return true
        }

        /// A string with no escapes and no control characters, as valid
        /// UTF-8; nil (position unchanged) otherwise.
        mutating func string() -> String? {
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

        /// A whole number: an optional minus, then digits without a
        /// leading zero, ending the token; nil (position unchanged) for a
        /// fraction, an exponent or more than `UInt64` holds.
        mutating func integer() -> (negative: Bool, magnitude: UInt64)? {
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
            guard i == bytes.count || Cursor.ends(bytes[i]) else { return nil }
            index = i
            return (negative, value)
        }

        /// Whether `byte` may follow a number or a literal.
        static func ends(_ byte: UInt8) -> Bool {
            byte == UInt8(ascii: ",") || byte == UInt8(ascii: "}") || byte == UInt8(ascii: "]") || byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
        }
    }
}
