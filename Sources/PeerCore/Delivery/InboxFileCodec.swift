package import FoundationEssentials

/// The on-disk form of an inbox (`<state-dir>/inbox2`, an app's
/// `inbox2.NAME`): messages that arrived while no client took them, and
/// the marks that keep queued messages once (issue 42, point 6).
///
/// Version 2 (written now): the header `PEERDI2\n` · `marks_len u32` ·
/// `crc32 u32` (of what follows, up to the records) · `last_id u64` ·
/// marks, then records. `last_id` is the largest id given before the file
/// was last rewritten, so ids keep increasing when every record is gone.
/// The marks are `marks_len / 32` entries of `sender peer id (16 bytes) ·
/// epoch u64 · seq u64`: per sender, the last queued message this inbox
/// stored before its record was compacted away. A record is
///
///     A5 · state u8 · length u32 · crc32 u32 (of the payload) · payload
///     payload: id u64 · received u64 (ms since 1970) · sender peer id (16 bytes) · epoch u64 · seq u64 · data
///
/// (integers big-endian). `epoch` and `seq` are the message's
/// ``QueueTag`` (both 0 for a message that came without one). `state` is
/// `5A` while the message waits and `00` once a client took it: taking
/// rewrites that one byte in place (the checksum leaves it out), and a
/// taken record keeps its tag until the file is compacted. A record whose
/// magic, length or checksum is wrong is skipped, and decoding resumes at
/// the next valid record: a bad record never takes the records after it.
///
/// Version 1 (read only, `inbox` of 0.2.0 and the releases before issue
/// 42): the header `PEERDI1\n`, then records whose payload has no epoch or
/// seq (`id · received · sender · data`). An inbox that finds one carries
/// its waiting messages into version 2.
package enum InboxFileCodec {
    /// The header of a version 2 file.
    package static let header: [UInt8] = Array("PEERDI2\n".utf8)
    /// The header of a version 1 file.
    package static let header1: [UInt8] = Array("PEERDI1\n".utf8)
    /// The first byte of every record.
    package static let magic: UInt8 = 0xA5
    /// The state byte of a waiting message.
    package static let waiting: UInt8 = 0x5A
    /// The state byte of a taken message.
    package static let taken: UInt8 = 0x00
    /// Bytes before the payload: magic, state, length, checksum.
    package static let recordOverhead = 10
    /// Bytes of a version 2 payload before the data: id, time, peer id, epoch, seq.
    package static let payloadHeader = 48
    /// Bytes of a version 1 payload before the data: id, time, peer id.
    package static let payloadHeader1 = 32
    /// Bytes of one mark: peer id, epoch, seq.
    package static let markSize = 32
    /// Offset of the state byte within a record.
    package static let stateOffset = 1

    /// The bytes one message takes on disk.
    package static func recordSize(dataCount: Int) -> Int { recordOverhead + payloadHeader + dataCount }

    /// One waiting version 2 record. `peerID` is 32 lowercase hex characters.
    package static func encode(id: UInt64, received: Date, peerID: String, tag: QueueTag? = nil, data: [UInt8]) -> [UInt8] {
        record(id: id, received: received, peerID: peerID, tagBytes: bigEndian(tag?.epoch ?? 0) + bigEndian(tag?.seq ?? 0), data: data)
    }

    /// One waiting version 1 record (for tests and fixtures: this release
    /// never writes one): the same, without epoch and seq.
    package static func encodeVersion1(id: UInt64, received: Date, peerID: String, data: [UInt8]) -> [UInt8] {
        record(id: id, received: received, peerID: peerID, tagBytes: [], data: data)
    }

    /// A waiting record whose payload has `tagBytes` between the sender and the data.
    private static func record(id: UInt64, received: Date, peerID: String, tagBytes: [UInt8], data: [UInt8]) -> [UInt8] {
        let millis = UInt64(max(0, (received.timeIntervalSince1970 * 1000).rounded()))
        let payload = bigEndian(id) + bigEndian(millis) + hexBytes(peerID) + tagBytes + data
        return [magic, waiting] + bigEndian32(UInt32(payload.count)) + bigEndian32(CRC32.checksum(payload)) + payload
    }

    /// Bytes of a version 2 header before its marks: the header,
    /// `marks_len`, the checksum and `last_id`.
    package static let fixedHeaderSize = 24

    /// The start of a version 2 file: its header, `lastID` and marks
    /// (sorted by peer id, so the same marks make the same bytes).
    package static func fileHeader(lastID: UInt64 = 0, marks: [String: QueueTag]) -> [UInt8] {
        var body = bigEndian(lastID)
        body.reserveCapacity(8 + marks.count * markSize)
        for (peerID, tag) in marks.sorted(by: { $0.key < $1.key }) {
            body += hexBytes(peerID) + bigEndian(tag.epoch) + bigEndian(tag.seq)
        }
        return header + bigEndian32(UInt32(body.count - 8)) + bigEndian32(CRC32.checksum(body)) + body
    }

    /// What a file holds: every valid record, waiting or taken.
    package struct Decoded: Sendable, Equatable {
        /// The messages still waiting, oldest first.
        package var entries: [InboxEntry]
        /// The largest id given: the header's `last_id`, or the largest
        /// id of any valid record if that is larger (0 for none).
        package var lastID: UInt64
        /// Bytes up to the end of the last valid record.
        package var wholeBytes: Int
        /// Bytes of bad records skipped before it.
        package var skippedBytes: Int
        /// The layout: 2, or 1 for an earlier release's file (0 for bytes
        /// with no header, which hold nothing).
        package var version = 2
        /// Per sender, the last queued message stored: the header's marks,
        /// then every valid record's tag, waiting or taken, in file order.
        package var marks: [String: QueueTag] = [:]
        /// Whether the header's marks failed their checksum (they are then
        /// left out: a repeat may be kept twice, nothing is lost).
        package var marksDamaged = false
    }

    /// Decodes a whole file of either version. A file without a header
    /// holds nothing.
    package static func decode(_ bytes: [UInt8]) -> Decoded {
        var decoded = Decoded(entries: [], lastID: 0, wholeBytes: 0, skippedBytes: 0)
        let version: Int
        var offset: Int
        if bytes.starts(with: header) {
            version = 2
            guard bytes.count >= header.count + 8 else {
                decoded.skippedBytes = bytes.count
                return decoded
            }
            let start = fixedHeaderSize
            let length = bytes.count >= start ? Int(u32(bytes, header.count)) : -1
            if length >= 0, length % markSize == 0, bytes.count - start >= length,
               CRC32.checksum(bytes[(start - 8)..<(start + length)]) == u32(bytes, header.count + 4) {
                decoded.lastID = u64(bytes, start - 8)
                var at = start
                while at < start + length {
                    decoded.marks[hex(bytes[at..<(at + 16)])] = QueueTag(epoch: u64(bytes, at + 16), seq: u64(bytes, at + 24))
                    at += markSize
                }
                offset = start + length
            } else {
                // Damaged marks (a bad sector: the file is only ever written
                // whole by rename): left out, and the records are found by
                // resynchronising past them.
                decoded.marksDamaged = true
                offset = min(start, bytes.count)
            }
        } else if bytes.starts(with: header1) {
            version = 1
            offset = header1.count
        } else {
            decoded.version = 0
            decoded.skippedBytes = bytes.count
            return decoded
        }
        decoded.version = version
        decoded.wholeBytes = offset
        while offset < bytes.count {
            if let (entry, state) = record(in: bytes, at: offset, version: version) {
                decoded.lastID = max(decoded.lastID, entry.id)
                if state == waiting { decoded.entries.append(entry) }
                if let tag = entry.tag { decoded.marks[entry.peerID] = tag }
                offset = entry.offset + recordOverhead + (version == 2 ? payloadHeader : payloadHeader1) + entry.size
                decoded.wholeBytes = offset
                continue
            }
            // Resynchronise at the next offset where a valid record starts.
            guard let next = (offset + 1..<bytes.count).first(where: { record(in: bytes, at: $0, version: version) != nil }) else { break }
            decoded.skippedBytes += next - offset
            offset = next
        }
        return decoded
    }

    /// The data of a version 2 record read back whole, if it is valid and waiting.
    package static func data(ofRecord bytes: [UInt8]) -> [UInt8]? {
        data(ofRecord: bytes, at: 0, version: 2)
    }

    /// The data of the record at `offset` of a file of `version`, if it is
    /// valid and waiting.
    package static func data(ofRecord bytes: [UInt8], at offset: Int, version: Int) -> [UInt8]? {
        guard let (entry, state) = record(in: bytes, at: offset, version: version), state == waiting else { return nil }
        let start = offset + recordOverhead + (version == 2 ? payloadHeader : payloadHeader1)
        return Array(bytes[start..<(start + entry.size)])
    }

    private static func record(in bytes: [UInt8], at offset: Int, version: Int) -> (InboxEntry, UInt8)? {
        let head = version == 2 ? payloadHeader : payloadHeader1
        guard bytes.count - offset >= recordOverhead + head, bytes[offset] == magic else { return nil }
        let state = bytes[offset + 1]
        guard state == waiting || state == taken else { return nil }
        let length = Int(u32(bytes, offset + 2))
        guard length >= head, bytes.count - offset - recordOverhead >= length else { return nil }
        let payload = bytes[(offset + recordOverhead)..<(offset + recordOverhead + length)]
        guard CRC32.checksum(payload) == u32(bytes, offset + 6) else { return nil }
        let base = offset + recordOverhead
        let id = u64(bytes, base)
        let millis = u64(bytes, base + 8)
        let peerID = hex(bytes[(base + 16)..<(base + 32)])
        var tag: QueueTag?
        if version == 2 {
            let epoch = u64(bytes, base + 32)
            if epoch != 0 { tag = QueueTag(epoch: epoch, seq: u64(bytes, base + 40)) }
        }
        let entry = InboxEntry(id: id, peerID: peerID, received: Date(timeIntervalSince1970: Double(millis) / 1000),
                               size: length - head, offset: offset, tag: tag)
        return (entry, state)
    }

    /// Lower-case hex, two digits a byte, built as bytes: one string a
    /// record, not two per byte (an inbox of 100,000 messages is read
    /// whole at start-up).
    private static func hex(_ bytes: ArraySlice<UInt8>) -> String {
        var out: [UInt8] = []
        out.reserveCapacity(32)
        for byte in bytes {
            out.append(hexDigits[Int(byte >> 4)])
            out.append(hexDigits[Int(byte & 0xF)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private static func hexBytes(_ hex: String) -> [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 16)
        let digits = Array(hex.utf8.prefix(32))
        for index in 0..<(digits.count / 2) {
            bytes[index] = nibble(digits[2 * index]) << 4 | nibble(digits[2 * index + 1])
        }
        return bytes
    }

    private static func nibble(_ c: UInt8) -> UInt8 {
        switch c {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return c - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return c - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return c - UInt8(ascii: "A") + 10
        default: return 0
        }
    }

    private static func u32(_ bytes: [UInt8], _ at: Int) -> UInt32 {
        bytes[at..<(at + 4)].reduce(0) { $0 << 8 | UInt32($1) }
    }

    private static func u64(_ bytes: [UInt8], _ at: Int) -> UInt64 {
        bytes[at..<(at + 8)].reduce(0) { $0 << 8 | UInt64($1) }
    }

    private static func bigEndian32(_ value: UInt32) -> [UInt8] {
        (0..<4).reversed().map { UInt8((value >> (8 * UInt32($0))) & 0xFF) }
    }

    private static func bigEndian(_ value: UInt64) -> [UInt8] {
        (0..<8).reversed().map { UInt8((value >> (8 * UInt64($0))) & 0xFF) }
    }
}
