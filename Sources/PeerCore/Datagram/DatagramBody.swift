/// The plaintext of one datagram (docs/protocol.md §11), sealed behind its
/// ``DatagramHeader``:
///
/// | kind | name | rest |
/// |---|---|---|
/// | 0x01 | data | `app_len` u8 (0 to 15; 0 = the default app) · `app` · data (the rest) |
/// | 0x02 | probe | `id` u64: asks for a `probeReply` |
/// | 0x03 | probeReply | `id` u64, copied from the probe |
///
/// Probes tell each side whether datagrams cross both ways (the path is
/// `up`, or `blocked`). Any other kind, a long app name, or a probe of
/// the wrong length is dropped after it opened, and counted as malformed.
package import PeerProtocol
package enum DatagramBody: Sendable, Equatable {
    /// Data for `app`'s clients: the data is the body from index `from`
    /// on (read in place, never copied).
    case data(app: AppName, from: Int)
    /// A probe, to be answered.
    case probe(UInt64)
    /// A probe's answer.
    case probeReply(UInt64)

    /// The kinds' wire values, pinned by tests.
    package static let dataKind: UInt8 = 0x01
    /// See ``dataKind``.
    package static let probeKind: UInt8 = 0x02
    /// See ``dataKind``.
    package static let probeReplyKind: UInt8 = 0x03

    /// The most data bytes one datagram of the default app carries. An
    /// app's datagrams carry that less the length of its name
    /// (``maxData(for:)``), so every datagram fits ``DatagramHeader/maxPayload``.
    package static let maxData = 1_200

    /// The most data bytes of one datagram of `app`.
    package static func maxData(for app: AppName) -> Int { maxData - app.text.utf8.count }

    /// Why a body that opened is dropped.
    package enum ParseError: Error, Sendable, Equatable {
        /// Empty, or shorter than its kind needs.
        case tooShort(Int)
        /// A kind this release does not know.
        case unknownKind(UInt8)
        /// A probe with bytes after its id.
        case trailingBytes(Int)
        /// An app name that is not one (too long, or not an app name's characters).
        case badApp
    }

    /// Writes the body of data `bytes` for `app` into `out` (which it clears).
    package static func encodeData(app: AppName, _ bytes: some Collection<UInt8>, into out: inout [UInt8]) {
        out.removeAll(keepingCapacity: true)
        out.append(dataKind)
        out.append(UInt8(app.text.utf8.count))
        out += app.text.utf8
        out += bytes
    }

    /// The body of a probe or its reply.
    package static func encodeProbe(_ id: UInt64, reply: Bool) -> [UInt8] {
        var out: [UInt8] = [reply ? probeReplyKind : probeKind]
        BigEndian.append(id, width: 8, to: &out)
        return out
    }

    /// Reads a body opened in `buffer`: the receive path's, compiled here
    /// for the buffer type so that it costs no generic dispatch per datagram.
    package static func parse(_ buffer: UnsafeRawBufferPointer) throws(ParseError) -> DatagramBody {
        try parseBody(buffer)
    }

    /// Reads an opened body (any bytes with integer indices: an array, a
    /// slice, or the buffer it was opened in).
    package static func parse<Bytes: RandomAccessCollection<UInt8>>(_ body: Bytes) throws(ParseError) -> DatagramBody where Bytes.Index == Int {
        try parseBody(body)
    }

    private static func parseBody<Bytes: RandomAccessCollection<UInt8>>(_ body: Bytes) throws(ParseError) -> DatagramBody where Bytes.Index == Int {
        guard let kind = body.first else { throw .tooShort(0) }
        let start = body.startIndex
        switch kind {
        case dataKind:
            guard body.count >= 2 else { throw .tooShort(body.count) }
            let length = Int(body[start + 1])
            // The default app, the common case, costs no string.
            if length == 0 { return .data(app: .none, from: start + 2) }
            guard body.count >= 2 + length else { throw .tooShort(body.count) }
            let text = String(decoding: body[(start + 2)..<(start + 2 + length)], as: UTF8.self)
            guard let app = try? AppName(text, allowDefault: true), app.text.utf8.count == length else { throw .badApp }
            return .data(app: app, from: start + 2 + length)
        case probeKind, probeReplyKind:
            guard body.count >= 9 else { throw .tooShort(body.count) }
            guard body.count == 9 else { throw .trailingBytes(body.count - 9) }
            let id = BigEndian.read(body, at: start + 1, width: 8)
            return kind == probeKind ? .probe(id) : .probeReply(id)
        default:
            throw .unknownKind(kind)
        }
    }
}
