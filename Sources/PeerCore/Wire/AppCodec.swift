/// Encodes and decodes ``AppMessage``s, the message types 0x20 to 0x2A of
/// feature `apps` (docs/protocol.md §10). ``WireCodec`` writes the version
/// and type byte and hands the body here. Big-endian; every length is
/// checked.
///
/// | type | message | body |
/// |------|---------|------|
/// | 0x20 | appList  | count u8, count × (name_len u8, name) |
/// | 0x21 | appOpen  | number u16, name_len u8, name |
/// | 0x22 | appData  | number u16, flags u8 (bit 0: more fragments follow), bytes (the rest) |
/// | 0x23 | appBusy  | number u16, message u64, text_len u16, text |
/// | 0x24 | appReady | number u16 |
/// | 0x25 | appRetry | number u16 |
/// | 0x26 | appInvite | name_len u8, name, timeout_ms u32, context_len u16, context |
/// | 0x27 | appAccept | name_len u8, name |
/// | 0x28 | appDecline | name_len u8, name, reason u8, text_len u16, text |
/// | 0x29 | appLeave | name_len u8, name, reason u8, text_len u16, text |
/// | 0x2A | appFlow  | number u16, then an `offer` (0x10) or `streamOpen` (0x18) whole: its type byte and body |
internal import PeerProtocol
package enum AppCodec {
    /// The first app message type.
    package static let firstType: UInt8 = 0x20
    /// The last app message type.
    package static let lastType: UInt8 = 0x2A
    /// The most names one `appList` carries.
    package static let maxNames = 64
    /// The most bytes of one name on the wire (names are checked against
    /// ``AppName``'s rule where they are used).
    package static let maxNameBytes = 63
    /// Data bytes in one `appData` fragment: the plaintext less version,
    /// type, number and flags.
    package static let maxFragment = WireCodec.maxPlaintext - 5

    /// The type byte of `message`.
    package static func type(of message: AppMessage) -> UInt8 {
        switch message {
        case .list: 0x20
        case .open: 0x21
        case .data: 0x22
        case .busy: 0x23
        case .ready: 0x24
        case .retry: 0x25
        case .invite: 0x26
        case .accept: 0x27
        case .decline: 0x28
        case .leave: 0x29
        case .flow: 0x2A
        }
    }

    /// Appends the body of `message` (after the type byte).
    package static func encodeBody(_ message: AppMessage, into out: inout [UInt8]) {
        switch message {
        case .list(let names):
            let kept = names.prefix(maxNames)
            out.append(UInt8(kept.count))
            for name in kept { appendName(name, to: &out) }
        case .open(let number, let name):
            BigEndian.append(UInt64(number), width: 2, to: &out)
            appendName(name, to: &out)
        case .data(let number, let more, let bytes):
            BigEndian.append(UInt64(number), width: 2, to: &out)
            out.append(more ? 1 : 0)
            out += bytes
        case .busy(let number, let message, let text):
            BigEndian.append(UInt64(number), width: 2, to: &out)
            BigEndian.append(message, width: 8, to: &out)
            let bytes = Array(text.utf8.prefix(WireCodec.maxText))
            BigEndian.append(UInt64(bytes.count), width: 2, to: &out)
            out += bytes
        case .ready(let number), .retry(let number):
            BigEndian.append(UInt64(number), width: 2, to: &out)
        case .invite(let name, let timeout, let context):
            appendName(name, to: &out)
            BigEndian.append(UInt64(timeout), width: 4, to: &out)
            let kept = context.prefix(WireCodec.maxContext)
            BigEndian.append(UInt64(kept.count), width: 2, to: &out)
            out += kept
        case .accept(let name):
            appendName(name, to: &out)
        case .decline(let name, let reason, let text), .leave(let name, let reason, let text):
            appendName(name, to: &out)
            out.append(reason.code)
            let bytes = Array(text.utf8.prefix(WireCodec.maxText))
            BigEndian.append(UInt64(bytes.count), width: 2, to: &out)
            out += bytes
        case .flow(let number, let opening):
            BigEndian.append(UInt64(number), width: 2, to: &out)
            out.append(BulkCodec.type(of: opening))
            BulkCodec.encodeBody(opening, into: &out)
        }
    }

    /// Decodes the body of a message of app type `type`.
    static func decodeBody(type: UInt8, _ reader: inout ByteReader) throws(WireError) -> AppMessage {
        switch type {
        case 0x20:
            let count = Int(try reader.u8("appList count"))
            guard count <= maxNames else { throw .fieldTooLong("appList", count) }
            var names: [String] = []
            for _ in 0..<count { names.append(try readName(&reader, "appList name")) }
            return .list(names)
        case 0x21:
            let number = try reader.u16("appOpen number")
            return .open(number: number, name: try readName(&reader, "appOpen name"))
        case 0x22:
            let number = try reader.u16("appData number")
            let flags = try reader.u8("appData flags")
            guard flags & ~1 == 0 else { throw .unknownFlags("appData flags", flags) }
            return .data(number: number, more: flags & 1 == 1, bytes: reader.rest())
        case 0x23:
            let number = try reader.u16("appBusy number")
            let message = try reader.u64("appBusy message")
            let length = Int(try reader.u16("appBusy text length"))
            guard length <= WireCodec.maxText else { throw .fieldTooLong("appBusy text", length) }
            return .busy(number: number, message: message, text: try reader.text(length, "appBusy text"))
        case 0x24:
            return .ready(number: try reader.u16("appReady number"))
        case 0x25:
            return .retry(number: try reader.u16("appRetry number"))
        case 0x26:
            let name = try readName(&reader, "appInvite name")
            let timeout = try reader.u32("appInvite timeout")
            let length = Int(try reader.u16("appInvite context length"))
            guard length <= WireCodec.maxContext else { throw .fieldTooLong("appInvite context", length) }
            return .invite(name: name, timeoutMilliseconds: timeout, context: try reader.bytes(length, "appInvite context"))
        case 0x27:
            return .accept(name: try readName(&reader, "appAccept name"))
        case 0x2A:
            let number = try reader.u16("appFlow number")
            let inner = try reader.u8("appFlow message type")
            // Only an opening: the rest of an app's flow goes by flow id.
            guard inner == offerType || inner == streamOpenType else {
                throw .unknownType(inner)
            }
            return .flow(number: number, opening: try BulkCodec.decodeBody(type: inner, &reader))
        default:
            let what = type == 0x28 ? "appDecline" : "appLeave"
            let name = try readName(&reader, "\(what) name")
            let reason = AppEndReason(code: try reader.u8("\(what) reason"))
            let length = Int(try reader.u16("\(what) text length"))
            guard length <= WireCodec.maxText else { throw .fieldTooLong("\(what) text", length) }
            let text = try reader.text(length, "\(what) text")
            return type == 0x28 ? .decline(name: name, reason: reason, text: text) : .leave(name: name, reason: reason, text: text)
        }
    }

    /// The bulk types an `appFlow` may carry: `offer` and `streamOpen`.
    private static let offerType: UInt8 = 0x10
    private static let streamOpenType: UInt8 = 0x18

    /// Splits one app's message into `appData` fragments that each fit one
    /// Noise message.
    package static func fragments(of data: [UInt8], number: UInt16) -> [WireMessage] {
        guard !data.isEmpty else { return [.app(.data(number: number, more: false, bytes: []))] }
        var out: [WireMessage] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + maxFragment)
            out.append(.app(.data(number: number, more: end < data.count, bytes: Array(data[start..<end]))))
            start = end
        }
        return out
    }

    private static func appendName(_ name: String, to out: inout [UInt8]) {
        let bytes = Array(name.utf8.prefix(maxNameBytes))
        out.append(UInt8(bytes.count))
        out += bytes
    }

    private static func readName(_ reader: inout ByteReader, _ what: String) throws(WireError) -> String {
        let length = Int(try reader.u8("\(what) length"))
        guard length <= maxNameBytes else { throw .fieldTooLong(what, length) }
        return try reader.text(length, what)
    }
}
