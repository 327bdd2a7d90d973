/// The on-disk form of a peer's queued messages.
///
/// Version 2 (written now): the 8-byte header `PEERDQ2\n`, then records of
///
///     magic A5 5A · length u32 · crc32 u32 (of the bytes) · bytes
///
/// (integers big-endian). A delivered message's record is marked in place:
/// its second magic byte becomes `00` (`A5 00`), so the peer's
/// acknowledgement costs one byte written, not a rewrite of the queue; the
/// file is compacted when delivered records make up most of it. A record
/// whose magic, length or checksum is wrong
/// (a write cut short, a bad sector) is skipped, and decoding resumes at the
/// next valid record: a bad record never takes the records after it.
///
/// Version 1 (read only): records of `length u32 · bytes` with no header; a
/// store that finds one rewrites it as version 2.
public enum QueueFileCodec {
    /// The header of a version 2 file.
    public static let header: [UInt8] = Array("PEERDQ2\n".utf8)
    /// The two bytes that start every version 2 record.
    public static let magic: [UInt8] = [0xA5, 0x5A]
    /// Bytes before a record's message: magic, length, checksum.
    public static let recordOverhead = 10
    /// The second magic byte of a delivered record.
    public static let delivered: UInt8 = 0x00
    /// Offset of that byte within a record.
    public static let stateOffset = 1

    /// What a file holds.
    public struct Decoded: Sendable, Equatable {
        /// The whole, valid messages not yet delivered, oldest first.
        public var messages: [[UInt8]]
        /// Where each of them starts in the file.
        public var offsets: [Int] = []
        /// Bytes of delivered records.
        public var deliveredBytes = 0
        /// Bytes up to the end of the last valid record.
        public var wholeBytes: Int
        /// Bytes of bad records skipped before it.
        public var skippedBytes: Int
        /// Whether the file should be rewritten: an old version, bad records
        /// inside it, or a cut-short record at its end.
        public var needsRewrite: Bool
    }

    /// One version 2 record.
    public static func encode(_ message: [UInt8]) -> [UInt8] {
        magic + bigEndian(UInt32(message.count)) + bigEndian(CRC32.checksum(message)) + message
    }

    /// A whole version 2 file.
    public static func encodeFile(_ messages: [[UInt8]]) -> [UInt8] {
        header + messages.flatMap(encode)
    }

    /// Decodes a file of either version.
    public static func decode(_ bytes: [UInt8]) -> Decoded {
        guard bytes.starts(with: header) else { return decodeVersion1(bytes) }
        var messages: [[UInt8]] = []
        var offsets: [Int] = []
        var delivered = 0
        var offset = header.count
        var whole = offset
        var skipped = 0
        while offset < bytes.count {
            if let (message, waiting) = record(in: bytes, at: offset) {
                if waiting {
                    messages.append(message)
                    offsets.append(offset)
                } else {
                    delivered += recordOverhead + message.count
                }
                offset += recordOverhead + message.count
                whole = offset
                continue
            }
            // Resynchronise: the next offset where a valid record starts.
            guard let next = (offset + 1..<bytes.count).first(where: { record(in: bytes, at: $0) != nil }) else { break }
            skipped += next - offset
            offset = next
        }
        return Decoded(messages: messages, offsets: offsets, deliveredBytes: delivered, wholeBytes: whole, skippedBytes: skipped,
                       needsRewrite: skipped > 0 || whole != bytes.count)
    }

    /// The message of a valid record at `offset`, if there is one, and
    /// whether it still waits (not delivered).
    private static func record(in bytes: [UInt8], at offset: Int) -> ([UInt8], Bool)? {
        guard bytes.count - offset >= recordOverhead, bytes[offset] == magic[0],
              bytes[offset + 1] == magic[1] || bytes[offset + 1] == delivered else { return nil }
        let length = Int(u32(bytes, offset + 2))
        guard bytes.count - offset - recordOverhead >= length else { return nil }
        let body = bytes[(offset + recordOverhead)..<(offset + recordOverhead + length)]
        guard CRC32.checksum(body) == u32(bytes, offset + 6) else { return nil }
        return (Array(body), bytes[offset + 1] == magic[1])
    }

    private static func decodeVersion1(_ bytes: [UInt8]) -> Decoded {
        var messages: [[UInt8]] = []
        var offset = 0
        while bytes.count - offset >= 4 {
            let n = Int(u32(bytes, offset))
            guard bytes.count - offset - 4 >= n else { break }
            messages.append(Array(bytes[(offset + 4)..<(offset + 4 + n)]))
            offset += 4 + n
        }
        return Decoded(messages: messages, wholeBytes: offset, skippedBytes: 0, needsRewrite: !bytes.isEmpty)
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }
}
