/// Encodes and decodes ``BulkMessage``s, the message types 0x10 to 0x1B
/// (docs/protocol.md §8). ``WireCodec`` writes the version and type byte
/// and hands the body here. Big-endian; every length is checked.
package import PeerProtocol
package enum BulkCodec {
    /// The first bulk message type.
    package static let firstType: UInt8 = 0x10
    /// The last bulk message type.
    package static let lastType: UInt8 = 0x1B
    /// The hash length (BLAKE2b-256).
    package static let hashLength = 32
    /// File bytes in one `chunk` of a full frame: the plaintext less the
    /// version, type, flow, file and offset.
    package static let maxChunk = WireCodec.maxPlaintext - 2 - FlowID.length - 4 - 8
    /// Stream bytes in one `streamData` of a full frame.
    package static let maxStreamData = WireCodec.maxPlaintext - 2 - FlowID.length
    /// The longest stream name.
    package static let maxStreamName = 255

    /// The plaintext head of a `chunk`: version, type, flow, file, offset.
    package static let chunkHeadLength = 2 + FlowID.length + 4 + 8
    /// The plaintext head of a `streamData`: version, type, flow.
    package static let streamDataHeadLength = 2 + FlowID.length

    /// Writes a `chunk`'s head into `out` (the bulk path builds frames in
    /// place; the bytes are exactly ``WireCodec/encode(_:)``'s).
    package static func writeChunkHead(_ flow: FlowID, file: UInt32, offset: UInt64, into out: UnsafeMutableRawBufferPointer) {
        out[0] = WireCodec.version
        out[1] = 0x12
        for index in 0..<FlowID.length { out[2 + index] = flow.bytes[index] }
        for index in 0..<4 { out[18 + index] = UInt8(truncatingIfNeeded: file >> (8 * UInt32(3 - index))) }
        for index in 0..<8 { out[22 + index] = UInt8(truncatingIfNeeded: offset >> (8 * UInt64(7 - index))) }
    }

    /// Writes a `streamData`'s head into `out`.
    package static func writeStreamDataHead(_ flow: FlowID, into out: UnsafeMutableRawBufferPointer) {
        out[0] = WireCodec.version
        out[1] = 0x19
        for index in 0..<FlowID.length { out[2 + index] = flow.bytes[index] }
    }

    /// The type byte of `message`.
    package static func type(of message: BulkMessage) -> UInt8 {
        switch message {
        case .offer: 0x10
        case .answer: 0x11
        case .chunk: 0x12
        case .block: 0x13
        case .fileEnd: 0x14
        case .transferDone: 0x15
        case .cancel: 0x16
        case .credit: 0x17
        case .streamOpen: 0x18
        case .streamData: 0x19
        case .streamEnd: 0x1A
        case .streamReset: 0x1B
        }
    }

    /// Appends the body of `message` (after the type byte).
    package static func encodeBody(_ message: BulkMessage, into out: inout [UInt8]) {
        out += message.flow.bytes
        switch message {
        case .offer(_, let more, let totalFiles, let totalBytes, let files):
            out.append(more ? 1 : 0)
            BigEndian.append(UInt64(totalFiles), width: 4, to: &out)
            BigEndian.append(totalBytes, width: 8, to: &out)
            BigEndian.append(UInt64(files.count), width: 2, to: &out)
            for file in files {
                BigEndian.append(UInt64(file.name.count), width: 2, to: &out)
                out += file.name
                BigEndian.append(UInt64(bitPattern: file.size), width: 8, to: &out)
                BigEndian.append(UInt64(file.mode), width: 4, to: &out)
                BigEndian.append(UInt64(bitPattern: file.mtime), width: 8, to: &out)
            }
        case .answer(_, let more, let files):
            out.append(more ? 1 : 0)
            BigEndian.append(UInt64(files.count), width: 2, to: &out)
            for file in files {
                BigEndian.append(UInt64(file.file), width: 4, to: &out)
                out.append(file.verdict.code)
                BigEndian.append(UInt64(file.firstBlock), width: 4, to: &out)
            }
        case .chunk(_, let file, let offset, let bytes):
            BigEndian.append(UInt64(file), width: 4, to: &out)
            BigEndian.append(offset, width: 8, to: &out)
            out += bytes
        case .block(_, let file, let block, let hash):
            BigEndian.append(UInt64(file), width: 4, to: &out)
            BigEndian.append(UInt64(block), width: 4, to: &out)
            out += hash
        case .fileEnd(_, let file, let hash):
            BigEndian.append(UInt64(file), width: 4, to: &out)
            out += hash
        case .transferDone, .streamEnd:
            break
        case .cancel(_, let reason, let text), .streamReset(_, let reason, let text):
            let bytes = Array(text.utf8.prefix(WireCodec.maxText))
            out.append(reason.code)
            BigEndian.append(UInt64(bytes.count), width: 2, to: &out)
            out += bytes
        case .credit(_, let bytes):
            BigEndian.append(UInt64(bytes), width: 4, to: &out)
        case .streamOpen(_, let name):
            let bytes = Array(name.utf8.prefix(maxStreamName))
            out.append(UInt8(bytes.count))
            out += bytes
        case .streamData(_, let bytes):
            out += bytes
        }
    }

    /// Decodes the body of a message of bulk type `type`.
    static func decodeBody(type: UInt8, _ reader: inout ByteReader) throws(WireError) -> BulkMessage {
        guard let flow = FlowID(bytes: try reader.bytes(FlowID.length, "flow id")) else { throw .truncated("flow id") }
        switch type {
        case 0x10:
            let more = try flag(&reader, "offer flags")
            let totalFiles = try reader.u32("offer total files")
            let totalBytes = try reader.u64("offer total bytes")
            let count = Int(try reader.u16("offer file count"))
            var files: [OfferedFile] = []
            for _ in 0..<count {
                let length = Int(try reader.u16("offer name length"))
                guard length <= TransferPath.maxPathBytes else { throw .fieldTooLong("offer name", length) }
                let name = try reader.bytes(length, "offer name")
                let size = Int64(bitPattern: try reader.u64("offer size"))
                let mode = try reader.u32("offer mode")
                let mtime = Int64(bitPattern: try reader.u64("offer mtime"))
                files.append(OfferedFile(name: name, size: size, mode: mode, mtime: mtime))
            }
            return .offer(flow, more: more, totalFiles: totalFiles, totalBytes: totalBytes, files: files)
        case 0x11:
            let more = try flag(&reader, "answer flags")
            let count = Int(try reader.u16("answer file count"))
            var files: [FileAnswer] = []
            for _ in 0..<count {
                let file = try reader.u32("answer file")
                let code = try reader.u8("answer verdict")
                guard let verdict = FileVerdict(code: code) else { throw .unknownFlags("answer verdict", code) }
                files.append(FileAnswer(file: file, verdict: verdict, firstBlock: try reader.u32("answer first block")))
            }
            return .answer(flow, more: more, files: files)
        case 0x12:
            let file = try reader.u32("chunk file")
            let offset = try reader.u64("chunk offset")
            let bytes = reader.rest()
            guard !bytes.isEmpty else { throw .truncated("chunk bytes") }
            return .chunk(flow, file: file, offset: offset, bytes: bytes)
        case 0x13:
            let file = try reader.u32("block file")
            let block = try reader.u32("block number")
            return .block(flow, file: file, block: block, hash: try reader.bytes(hashLength, "block hash"))
        case 0x14:
            let file = try reader.u32("fileEnd file")
            return .fileEnd(flow, file: file, hash: try reader.bytes(hashLength, "fileEnd hash"))
        case 0x15:
            return .transferDone(flow)
        case 0x16:
            let (reason, text) = try readReason(&reader, "cancel")
            return .cancel(flow, reason: reason, text: text)
        case 0x17:
            return .credit(flow, bytes: try reader.u32("credit"))
        case 0x18:
            let length = Int(try reader.u8("streamOpen name length"))
            return .streamOpen(flow, name: try reader.text(length, "streamOpen name"))
        case 0x19:
            let bytes = reader.rest()
            guard !bytes.isEmpty else { throw .truncated("streamData bytes") }
            return .streamData(flow, bytes: bytes)
        case 0x1A:
            return .streamEnd(flow)
        default:
            let (reason, text) = try readReason(&reader, "streamReset")
            return .streamReset(flow, reason: reason, text: text)
        }
    }

    private static func flag(_ reader: inout ByteReader, _ what: String) throws(WireError) -> Bool {
        let flags = try reader.u8(what)
        guard flags & ~1 == 0 else { throw .unknownFlags(what, flags) }
        return flags == 1
    }

    private static func readReason(_ reader: inout ByteReader, _ what: String) throws(WireError) -> (FlowEndReason, String) {
        let reason = FlowEndReason(code: try reader.u8("\(what) reason"))
        let length = Int(try reader.u16("\(what) text length"))
        guard length <= WireCodec.maxText else { throw .fieldTooLong("\(what) text", length) }
        return (reason, try reader.text(length, "\(what) text"))
    }
}
