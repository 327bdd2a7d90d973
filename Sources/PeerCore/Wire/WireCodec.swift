/// Encodes and decodes ``WireMessage``s. Layout (big-endian):
///
///     version u8 (= 1) | type u8 | body
///
/// | type | message | body |
/// |------|---------|------|
/// | 0x01 | invite  | timeout_ms u32, flags u8 (bit 0: for pairing; bit 1: for an app), name_len u8, name, context_len u16, context, and with bit 1: app_len u8, app |
/// | 0x02 | accept  | name_len u8 · name (UTF-8), or empty |
/// | 0x03 | decline | reason u8, text_len u16, text |
/// | 0x04 | data    | flags u8 (bit 0: more fragments follow), bytes (the rest) |
/// | 0x05 | ping    | nonce u64 |
/// | 0x06 | pong    | nonce u64 |
/// | 0x07 | close   | reason u8, text_len u16, text |
/// | 0x08 | pairRequest | (none) |
/// | 0x09 | pairCommit  | 32 bytes |
/// | 0x0A | pairNonce   | 32 bytes |
/// | 0x0B | pairReveal  | 32 bytes |
/// | 0x0C | pairConfirm | (none) |
/// | 0x0D | pairReject  | reason u8, text_len u16, text |
/// | 0x0E | unpair      | (none) |
/// | 0x0F | ack         | messages received u64 |
/// | 0x10–0x1B | bulk   | ``BulkCodec`` (transfers and streams) |
/// | 0x20–0x2A | app    | ``AppCodec`` (apps; feature `apps`) |
/// | 0x32 | queued | epoch u64, seq u64 (feature `once`) |
/// | 0x30–0xFF, but 0x32 | feature | the body, read by the feature that registered the type (0x30, 0x31: ``DatagramSessionMessage``) |
///
/// Every length is checked against the bytes present and against its limit;
/// nothing is read past the end and nothing is left over.
internal import PeerProtocol
package enum WireCodec {
    /// The wire version.
    package static let version: UInt8 = 1
    /// The largest Noise message (the 2-byte frame length's range).
    package static let maxNoiseMessage = 65535
    /// The largest plaintext in one transport message (Noise adds a 16-byte tag).
    package static let maxPlaintext = maxNoiseMessage - 16
    /// Data bytes that fit in one fragment.
    package static let maxFragment = maxPlaintext - 3
    /// The largest invitation context.
    package static let maxContext = 4096
    /// The largest reason text.
    package static let maxText = 1024
    /// The first type a feature's message may have (``WireMessage/feature(type:body:)``):
    /// the types below are the core's, each decoded here or unknown.
    package static let firstFeatureType: UInt8 = 0x30
    /// The type of `queued` (feature `once`).
    package static let queuedType: UInt8 = 0x32

    /// Encodes a message.
    package static func encode(_ message: WireMessage) -> [UInt8] {
        var out: [UInt8] = [version]
        switch message {
        case .invite(let name, let context, let timeout, let pairing, let app):
            let nameBytes = Array(name.utf8.prefix(255))
            out.append(0x01)
            appendU32(timeout, to: &out)
            out.append((pairing ? 1 : 0) | (app.isEmpty ? 0 : 2))
            out.append(UInt8(nameBytes.count))
            out += nameBytes
            appendU16(UInt16(min(context.count, maxContext)), to: &out)
            out += context.prefix(maxContext)
            if !app.isEmpty {
                let appBytes = Array(app.utf8.prefix(AppCodec.maxNameBytes))
                out.append(UInt8(appBytes.count))
                out += appBytes
            }
        case .accept(let name):
            out.append(0x02)
            let nameBytes = Array(name.utf8.prefix(255))
            if !nameBytes.isEmpty {
                out.append(UInt8(nameBytes.count))
                out += nameBytes
            }
        case .decline(let reason, let text):
            out.append(0x03)
            appendReason(reason, text, to: &out)
        case .data(let more, let bytes):
            out.append(0x04)
            out.append(more ? 1 : 0)
            out += bytes
        case .ping(let nonce):
            out.append(0x05)
            appendU64(nonce, to: &out)
        case .pong(let nonce):
            out.append(0x06)
            appendU64(nonce, to: &out)
        case .close(let reason, let text):
            out.append(0x07)
            appendReason(reason, text, to: &out)
        case .pairRequest:
            out.append(0x08)
        case .pairCommit(let bytes):
            out.append(0x09)
            out += bytes.prefix(PairingCode.nonceLength)
        case .pairNonce(let bytes):
            out.append(0x0A)
            out += bytes.prefix(PairingCode.nonceLength)
        case .pairReveal(let bytes):
            out.append(0x0B)
            out += bytes.prefix(PairingCode.nonceLength)
        case .pairConfirm:
            out.append(0x0C)
        case .pairReject(let reason, let text):
            let bytes = Array(text.utf8.prefix(maxText))
            out.append(0x0D)
            out.append(reason.code)
            appendU16(UInt16(bytes.count), to: &out)
            out += bytes
        case .unpair:
            out.append(0x0E)
        case .ack(let count):
            out.append(0x0F)
            appendU64(count, to: &out)
        case .bulk(let bulk):
            out.append(BulkCodec.type(of: bulk))
            BulkCodec.encodeBody(bulk, into: &out)
        case .app(let app):
            out.append(AppCodec.type(of: app))
            AppCodec.encodeBody(app, into: &out)
        case .feature(let type, let body):
            out.append(type)
            out += body
        case .queued(let tag):
            out.append(queuedType)
            appendU64(tag.epoch, to: &out)
            appendU64(tag.seq, to: &out)
        }
        return out
    }

    /// Decodes a message, checking every length.
    package static func decode(_ bytes: [UInt8]) throws(WireError) -> WireMessage {
        var reader = ByteReader(bytes)
        let v = try reader.u8("version")
        guard v == version else { throw .unsupportedVersion(v) }
        let type = try reader.u8("type")
        let message: WireMessage
        switch type {
        case 0x01:
            let timeout = try reader.u32("invite timeout")
            let flags = try reader.u8("invite flags")
            guard flags & ~3 == 0 else { throw .unknownFlags("invite flags", flags) }
            let nameLength = Int(try reader.u8("invite name length"))
            let name = try reader.text(nameLength, "invite name")
            let contextLength = Int(try reader.u16("invite context length"))
            guard contextLength <= maxContext else { throw .fieldTooLong("invite context", contextLength) }
            let context = try reader.bytes(contextLength, "invite context")
            var app = ""
            if flags & 2 == 2 {
                let appLength = Int(try reader.u8("invite app length"))
                guard appLength >= 1, appLength <= AppCodec.maxNameBytes else { throw .fieldTooLong("invite app", appLength) }
                app = try reader.text(appLength, "invite app")
            }
            message = .invite(name: name, context: context, timeoutMilliseconds: timeout, pairing: flags & 1 == 1, app: app)
        case 0x02:
            // An empty body is an accept without a name.
            if reader.isAtEnd {
                message = .accept()
            } else {
                let nameLength = Int(try reader.u8("accept name length"))
                message = .accept(name: try reader.text(nameLength, "accept name"))
            }
        case 0x03:
            let (reason, text) = try readReason(&reader, "decline")
            message = .decline(reason: reason, text: text)
        case 0x04:
            let flags = try reader.u8("data flags")
            guard flags & ~1 == 0 else { throw .unknownFlags("data flags", flags) }
            message = .data(more: flags & 1 == 1, bytes: reader.rest())
        case 0x05:
            message = .ping(try reader.u64("ping"))
        case 0x06:
            message = .pong(try reader.u64("pong"))
        case 0x07:
            let (reason, text) = try readReason(&reader, "close")
            message = .close(reason: reason, text: text)
        case 0x08:
            message = .pairRequest
        case 0x09:
            message = .pairCommit(try reader.bytes(PairingCode.nonceLength, "pairCommit"))
        case 0x0A:
            message = .pairNonce(try reader.bytes(PairingCode.nonceLength, "pairNonce"))
        case 0x0B:
            message = .pairReveal(try reader.bytes(PairingCode.nonceLength, "pairReveal"))
        case 0x0C:
            message = .pairConfirm
        case 0x0D:
            let failure = PairingFailure(code: try reader.u8("pairReject reason"))
            let length = Int(try reader.u16("pairReject text length"))
            guard length <= maxText else { throw .fieldTooLong("pairReject text", length) }
            message = .pairReject(reason: failure, text: try reader.text(length, "pairReject text"))
        case 0x0E:
            message = .unpair
        case 0x0F:
            message = .ack(try reader.u64("ack"))
        case BulkCodec.firstType...BulkCodec.lastType:
            message = .bulk(try BulkCodec.decodeBody(type: type, &reader))
        case AppCodec.firstType...AppCodec.lastType:
            message = .app(try AppCodec.decodeBody(type: type, &reader))
        case queuedType:
            message = .queued(QueueTag(epoch: try reader.u64("queued epoch"), seq: try reader.u64("queued seq")))
        case firstFeatureType...:
            // A feature's: its owner reads the body, or, with no owner, the
            // session ends on ``WireError/unknownType(_:)`` as here.
            message = .feature(type: type, body: reader.rest())
        default:
            throw .unknownType(type)
        }
        guard reader.isAtEnd else { throw .trailingBytes("message type 0x\(String(type, radix: 16))") }
        return message
    }

    /// Splits application data into fragments that each fit one Noise message.
    package static func fragments(of data: [UInt8]) -> [WireMessage] {
        guard !data.isEmpty else { return [.data(more: false, bytes: [])] }
        var out: [WireMessage] = []
        var start = 0
        while start < data.count {
            let end = min(data.count, start + maxFragment)
            out.append(.data(more: end < data.count, bytes: Array(data[start..<end])))
            start = end
        }
        return out
    }

    /// Bytes on the wire for one application message of `size` bytes: per
    /// fragment, the 2-byte frame length, the 16-byte tag and 3 bytes of
    /// header.
    package static func framedSize(ofMessage size: Int) -> Int {
        let fragments = max(1, (size + maxFragment - 1) / maxFragment)
        return size + fragments * (2 + 16 + 3)
    }

    /// Prefixes a Noise message with its 2-byte big-endian length.
    package static func frame(_ noiseMessage: [UInt8]) -> [UInt8] {
        [UInt8(noiseMessage.count >> 8), UInt8(noiseMessage.count & 0xFF)] + noiseMessage
    }

    private static func appendReason(_ reason: CloseReason, _ text: String, to out: inout [UInt8]) {
        let bytes = Array(text.utf8.prefix(maxText))
        out.append(reason.code)
        appendU16(UInt16(bytes.count), to: &out)
        out += bytes
    }

    private static func readReason(_ reader: inout ByteReader, _ what: String) throws(WireError) -> (CloseReason, String) {
        let reason = CloseReason(code: try reader.u8("\(what) reason"))
        let length = Int(try reader.u16("\(what) text length"))
        guard length <= maxText else { throw .fieldTooLong("\(what) text", length) }
        return (reason, try reader.text(length, "\(what) text"))
    }

    private static func appendU16(_ value: UInt16, to out: inout [UInt8]) { BigEndian.append(UInt64(value), width: 2, to: &out) }

    private static func appendU32(_ value: UInt32, to out: inout [UInt8]) { BigEndian.append(UInt64(value), width: 4, to: &out) }

    private static func appendU64(_ value: UInt64, to out: inout [UInt8]) { BigEndian.append(value, width: 8, to: &out) }
}
