/// The on-disk form of a peer's queued messages.
///
/// Version 3 (written now, issue 42): the 16-byte header `PEERDQ3\n` ·
/// `epoch u64`, then records of
///
///     magic A5 5A · length u32 · crc32 u32 (of seq and bytes) · seq u64 · bytes
///
/// (integers big-endian; `length` counts `bytes`). The epoch is a random
/// number chosen when the file is made, and `seq` counts the file's
/// messages from 1: together they are the message's ``QueueTag``, which the
/// receiver uses to keep it once (protocol.md §5, "Exactly once"). A file
/// is made anew (a new epoch) only once everything in the old one was
/// acknowledged, so a tag never names two messages.
///
/// A delivered message's record is marked in place: its second magic byte
/// becomes `00` (`A5 00`), so the peer's acknowledgement costs one byte
/// written, not a rewrite of the queue; the file is compacted (epoch and
/// seqs kept) when delivered records make up most of it. A record whose
/// magic, length or checksum is wrong (a write cut short, a bad sector) is
/// skipped, and decoding resumes at the next valid record: a bad record
/// never takes the records after it.
///
/// Version 2 (read only, 0.2.0's): the header `PEERDQ2\n`, then records of
/// `A5 5A · length u32 · crc32 u32 (of the bytes) · bytes`. Version 1 (read
/// only, 0.1.0's): records of `length u32 · bytes` with no header. A store
/// that finds either carries its messages into a version 3 file.
package enum QueueFileCodec {
    /// The first 8 bytes of a version 3 file.
    package static let header: [UInt8] = Array("PEERDQ3\n".utf8)
    /// Bytes before the first record of a version 3 file: the header and the epoch.
    package static let headerSize = 16
    /// The header of a version 2 file.
    package static let header2: [UInt8] = Array("PEERDQ2\n".utf8)
    /// The two bytes that start every version 2 and 3 record.
    package static let magic: [UInt8] = [0xA5, 0x5A]
    /// Bytes before a version 3 record's message: magic, length, checksum, seq.
    package static let recordOverhead = 18
    /// Bytes before a version 2 record's message: magic, length, checksum.
    package static let recordOverhead2 = 10
    /// The second magic byte of a delivered record.
    package static let delivered: UInt8 = 0x00
    /// Offset of that byte within a record.
    package static let stateOffset = 1

    /// What a file holds.
    package struct Decoded: Sendable, Equatable {
        /// The layout: 1, 2 or 3.
        package var version: Int
        /// A version 3 file's epoch (0 for the older layouts, which have none).
        package var epoch: UInt64 = 0
        /// The whole, valid messages not yet delivered, oldest first.
        package var messages: [[UInt8]]
        /// Each message's seq (version 3; empty for the older layouts).
        package var seqs: [UInt64] = []
        /// Where each of them starts in the file.
        package var offsets: [Int] = []
        /// The largest seq of any valid record, delivered or not (version 3).
        package var lastSeq: UInt64 = 0
        /// Bytes of delivered records.
        package var deliveredBytes = 0
        /// Bytes up to the end of the last valid record.
        package var wholeBytes: Int
        /// Bytes of bad records skipped before it.
        package var skippedBytes: Int
        /// Whether the file should be rewritten: bad records inside it, or a
        /// cut-short record at its end.
        package var needsRewrite: Bool
    }

    /// One version 3 record.
    package static func encode(seq: UInt64, message: [UInt8]) -> [UInt8] {
        let sealed = bigEndian64(seq) + message
        return magic + bigEndian(UInt32(message.count)) + bigEndian(CRC32.checksum(sealed)) + sealed
    }

    /// The start of a version 3 file.
    package static func fileHeader(epoch: UInt64) -> [UInt8] { header + bigEndian64(epoch) }

    /// A whole version 3 file.
    package static func encodeFile(epoch: UInt64, records: [(seq: UInt64, message: [UInt8])]) -> [UInt8] {
        fileHeader(epoch: epoch) + records.flatMap { encode(seq: $0.seq, message: $0.message) }
    }

    /// A whole version 2 file (0.2.0's layout: for tests and fixtures; this
    /// release never writes one).
    package static func encodeVersion2File(_ messages: [[UInt8]]) -> [UInt8] {
        header2 + messages.flatMap { magic + bigEndian(UInt32($0.count)) + bigEndian(CRC32.checksum($0)) + $0 }
    }

    /// Decodes a file of any version.
    package static func decode(_ bytes: [UInt8]) -> Decoded {
        if bytes.starts(with: header) { return decodeRecords(bytes, version: 3) }
        if bytes.starts(with: header2) { return decodeRecords(bytes, version: 2) }
        return decodeVersion1(bytes)
    }

    private static func decodeRecords(_ bytes: [UInt8], version: Int) -> Decoded {
        let start = version == 3 ? headerSize : header2.count
        var decoded = Decoded(version: version, messages: [], wholeBytes: min(start, bytes.count), skippedBytes: 0,
                              needsRewrite: bytes.count < start)
        guard bytes.count >= start else { return decoded }
        if version == 3 { decoded.epoch = u64(bytes, header.count) }
        let overhead = version == 3 ? recordOverhead : recordOverhead2
        var offset = start
        while offset < bytes.count {
            if let record = record(in: bytes, at: offset, version: version) {
                if record.waiting {
                    decoded.messages.append(record.message)
                    decoded.offsets.append(offset)
                    if version == 3 { decoded.seqs.append(record.seq) }
                } else {
                    decoded.deliveredBytes += overhead + record.message.count
                }
                decoded.lastSeq = max(decoded.lastSeq, record.seq)
                offset += overhead + record.message.count
                decoded.wholeBytes = offset
                continue
            }
            // Resynchronise: the next offset where a valid record starts.
            guard let next = (offset + 1..<bytes.count).first(where: { record(in: bytes, at: $0, version: version) != nil }) else { break }
            decoded.skippedBytes += next - offset
            offset = next
        }
        decoded.needsRewrite = decoded.skippedBytes > 0 || decoded.wholeBytes != bytes.count
        return decoded
    }

    /// The valid record at `offset`, if there is one: its message, seq (0
    /// in version 2) and whether it still waits (not delivered).
    private static func record(in bytes: [UInt8], at offset: Int, version: Int) -> (message: [UInt8], seq: UInt64, waiting: Bool)? {
        let overhead = version == 3 ? recordOverhead : recordOverhead2
        guard bytes.count - offset >= overhead, bytes[offset] == magic[0],
              bytes[offset + 1] == magic[1] || bytes[offset + 1] == delivered else { return nil }
        let length = Int(u32(bytes, offset + 2))
        guard bytes.count - offset - overhead >= length else { return nil }
        // Version 3's checksum covers the seq too: it starts 8 bytes earlier.
        let sealed = bytes[(offset + 10)..<(offset + overhead + length)]
        guard CRC32.checksum(sealed) == u32(bytes, offset + 6) else { return nil }
        let seq = version == 3 ? u64(bytes, offset + 10) : 0
        return (Array(bytes[(offset + overhead)..<(offset + overhead + length)]), seq, bytes[offset + 1] == magic[1])
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
        return Decoded(version: 1, messages: messages, wholeBytes: offset, skippedBytes: 0, needsRewrite: !bytes.isEmpty)
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func bigEndian(_ value: UInt32) -> [UInt8] {
        [UInt8(value >> 24), UInt8((value >> 16) & 0xFF), UInt8((value >> 8) & 0xFF), UInt8(value & 0xFF)]
    }

    private static func bigEndian64(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8((value >> (8 * UInt64($0))) & 0xFF) }
    }
}
