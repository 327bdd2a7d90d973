/// The datagram path's messages inside the session (feature `datagrams`,
/// docs/protocol.md §11): the feature registers their two types with the
/// session (``WireMessage/feature(type:body:)``) and reads their bodies
/// here; the session's codec knows neither. Layout after `version · type`:
///
/// | type | message | body |
/// |------|---------|------|
/// | 0x30 | datagramPath | index u32, port u16 |
/// | 0x31 | datagramFrame | app_len u8, app, data (the rest) |
internal import PeerProtocol
package enum DatagramSessionMessage: Equatable, Sendable {
    /// Where the sender takes datagrams for this session: the index it
    /// chose for the session, which every datagram to it carries, and its
    /// UDP port (0: it has no datagram path).
    case path(index: UInt32, port: UInt16)
    /// A datagram carried in the session (§11, "In the session"): only
    /// when the sender's client asked for it, and dropped rather than
    /// queued behind much.
    case frame(app: String, data: [UInt8])

    /// The type of `datagramPath`, pinned by tests.
    package static let pathType: UInt8 = 0x30
    /// The type of `datagramFrame`, pinned by tests.
    package static let frameType: UInt8 = 0x31
    /// Both types, as the feature registers them.
    package static let types: Set<UInt8> = [pathType, frameType]

    /// The message as the session carries it.
    package var wire: WireMessage {
        var body: [UInt8] = []
        switch self {
        case .path(let index, let port):
            BigEndian.append(UInt64(index), width: 4, to: &body)
            BigEndian.append(UInt64(port), width: 2, to: &body)
            return .feature(type: Self.pathType, body: body)
        case .frame(let app, let data):
            let name = Array(app.utf8.prefix(AppName.maxLength))
            body.reserveCapacity(1 + name.count + data.count)
            body.append(UInt8(name.count))
            body += name
            body += data.prefix(DatagramBody.maxData - name.count)
            return .feature(type: Self.frameType, body: body)
        }
    }

    /// Reads the body of a message of `type` (one of ``types``), checking
    /// every length as the session's codec does its own.
    package static func decode(type: UInt8, body: [UInt8]) throws(WireError) -> DatagramSessionMessage {
        var reader = ByteReader(body)
        let message: DatagramSessionMessage
        switch type {
        case pathType:
            message = .path(index: try reader.u32("datagramPath index"), port: try reader.u16("datagramPath port"))
        case frameType:
            let length = Int(try reader.u8("datagramFrame app length"))
            guard length <= AppName.maxLength else { throw .fieldTooLong("datagramFrame app", length) }
            let app = try reader.text(length, "datagramFrame app")
            let data = reader.rest()
            guard data.count <= DatagramBody.maxData - length else { throw .fieldTooLong("datagramFrame data", data.count) }
            message = .frame(app: app, data: data)
        default:
            throw .unknownType(type)
        }
        guard reader.isAtEnd else { throw .trailingBytes("message type 0x\(String(type, radix: 16))") }
        return message
    }

    /// Why the message may not come now (the session ends with these
    /// words), or nil: both need an accepted session, and an index is
    /// never 0 (port 0 is allowed: the path is off).
    package func violation(canSendData: Bool) -> String? {
        switch self {
        case .path(let index, _):
            guard canSendData else { return "a datagramPath outside an accepted session" }
            return index == 0 ? "a datagramPath with index 0" : nil
        case .frame:
            return canSendData ? nil : "a datagramFrame outside an accepted session"
        }
    }
}
