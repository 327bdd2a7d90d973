/// The head of a decrypted plaintext that carries bulk bytes, a `chunk` or
/// a `streamData` (docs/protocol.md §8), read where the plaintext lies.
///
/// The receive path decrypts each frame in its read buffer; reading only the
/// head here lets it hand the bytes on (to `pwrite`, the hash, a pipe) from
/// that buffer, with no copy and no allocation for them (issue 12, point 8).
/// Every other message, and any malformed one, goes through
/// ``WireCodec/decode(_:)``, which reports the errors.
package import PeerProtocol
package enum BulkDataHead: Sendable, Equatable {
    /// A `chunk`: file bytes of transfer `flow`, file `file`, at `offset`.
    case chunk(FlowID, file: UInt32, offset: UInt64)
    /// A `streamData`: stream bytes of `flow`.
    case streamData(FlowID)

    /// The feature a peer must have announced to send it.
    package var feature: WireFeature {
        switch self {
        case .chunk: .files
        case .streamData: .streams
        }
    }

    /// The head of `plaintext`, and where its bytes start, when it is a
    /// `chunk` or `streamData` of this wire version with at least one byte
    /// (exactly what ``WireCodec/decode(_:)`` accepts for those types);
    /// nil for anything else.
    package static func parse(_ plaintext: UnsafeRawBufferPointer) -> (head: BulkDataHead, dataStart: Int)? {
        guard plaintext.count >= 2, plaintext[0] == WireCodec.version else { return nil }
        switch plaintext[1] {
        case 0x12:
            guard plaintext.count > BulkCodec.chunkHeadLength, let flow = flow(plaintext) else { return nil }
            let file = UInt32(truncatingIfNeeded: BigEndian.read(plaintext, at: 2 + FlowID.length, width: 4))
            let offset = BigEndian.read(plaintext, at: 2 + FlowID.length + 4, width: 8)
            return (.chunk(flow, file: file, offset: offset), BulkCodec.chunkHeadLength)
        case 0x19:
            guard plaintext.count > BulkCodec.streamDataHeadLength, let flow = flow(plaintext) else { return nil }
            return (.streamData(flow), BulkCodec.streamDataHeadLength)
        default:
            return nil
        }
    }

    private static func flow(_ plaintext: UnsafeRawBufferPointer) -> FlowID? {
        FlowID(bytes: Array(plaintext[2..<(2 + FlowID.length)]))
    }
}
