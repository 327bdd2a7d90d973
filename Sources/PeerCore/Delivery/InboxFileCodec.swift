import FoundationEssentials

/// The on-disk form of the inbox (`<state-dir>/inbox`): messages that
/// arrived while no client took them.
///
/// The 8-byte header `PEERDI1\n`, then records of
///
///     A5 · state u8 · length u32 · crc32 u32 (of the payload) · payload
///     payload: id u64 · received u64 (ms since 1970) · sender peer id (16 bytes) · data
///
/// (integers big-endian). `state` is `5A` while the message waits and `00`
/// once a client took it: taking rewrites that one byte in place, so taking
/// one message never rewrites the file (the checksum leaves the state byte
/// out). A record whose magic, length or checksum is wrong is skipped, and
/// decoding resumes at the next valid record: a bad record never takes the
/// records after it.
public enum InboxFileCodec {
    /// The header.
    public static let header: [UInt8] = Array("PEERDI1\n".utf8)
    /// The first byte of every record.
    public static let magic: UInt8 = 0xA5
    /// The state byte of a waiting message.
    public static let waiting: UInt8 = 0x5A
    /// The state byte of a taken message.
    public static let taken: UInt8 = 0x00
    /// Bytes before the payload: magic, state, length, checksum.
    public static let recordOverhead = 10
    /// Bytes of the payload before the data: id, time, peer id.
    public static let payloadHeader = 32
    /// Offset of the state byte within a record.
    public static let stateOffset = 1

    /// The bytes one message takes on disk.
    public static func recordSize(dataCount: Int) -> Int { recordOverhead + payloadHeader + dataCount }

    /// One waiting record. `peerID` is 32 lowercase hex characters.
    public static func encode(id: UInt64, received: Date, peerID: String, data: [UInt8]) -> [UInt8] {
        let millis = UInt64(max(0, (received.timeIntervalSince1970 * 1000).rounded()))
        let payload = bigEndian(id) + bigEndian(millis) + hexBytes(peerID) + data
        return [magic, waiting] + bigEndian32(UInt32(payload.count)) + bigEndian32(CRC32.checksum(payload)) + payload
    }

    /// What a file holds: every valid record, waiting or taken.
    public struct Decoded: Sendable, Equatable {
        /// The messages still waiting, oldest first.
        public var entries: [InboxEntry]
        /// The largest id seen in any valid record (0 for none).
        public var lastID: UInt64
        /// Bytes up to the end of the last valid record.
        public var wholeBytes: Int
        /// Bytes of bad records skipped before it.
        public var skippedBytes: Int
    }

    /// Decodes a whole file. A file without the header holds nothing.
    public static func decode(_ bytes: [UInt8]) -> Decoded {
        guard bytes.starts(with: header) else { return Decoded(entries: [], lastID: 0, wholeBytes: 0, skippedBytes: bytes.count) }
        var entries: [InboxEntry] = []
        var lastID: UInt64 = 0
        var offset = header.count
        var whole = offset
        var skipped = 0
        while offset < bytes.count {
            if let (entry, state) = record(in: bytes, at: offset) {
                lastID = max(lastID, entry.id)
                if state == waiting { entries.append(entry) }
                offset += recordSize(dataCount: entry.size)
                whole = offset
                continue
            }
            // Resynchronise at the next offset where a valid record starts.
            guard let next = (offset + 1..<bytes.count).first(where: { record(in: bytes, at: $0) != nil }) else { break }
            skipped += next - offset
            offset = next
        }
        return Decoded(entries: entries, lastID: lastID, wholeBytes: whole, skippedBytes: skipped)
    }

    /// The data of a record read back whole, if it is valid and waiting.
    public static func data(ofRecord bytes: [UInt8]) -> [UInt8]? {
        guard let (entry, state) = record(in: bytes, at: 0), state == waiting else { return nil }
        return Array(bytes[(recordOverhead + payloadHeader)..<(recordOverhead + payloadHeader + entry.size)])
    }

    private static func record(in bytes: [UInt8], at offset: Int) -> (InboxEntry, UInt8)? {
        guard bytes.count - offset >= recordOverhead + payloadHeader, bytes[offset] == magic else { return nil }
        let state = bytes[offset + 1]
        guard state == waiting || state == taken else { return nil }
        let length = Int(u32(bytes, offset + 2))
        guard length >= payloadHeader, bytes.count - offset - recordOverhead >= length else { return nil }
        let payload = bytes[(offset + recordOverhead)..<(offset + recordOverhead + length)]
        guard CRC32.checksum(payload) == u32(bytes, offset + 6) else { return nil }
        let base = offset + recordOverhead
        let id = u64(bytes, base)
        let millis = u64(bytes, base + 8)
        // Lower-case hex, two digits a byte, built as bytes: one string a
        // record, not two per byte (an inbox of 100,000 messages is read
        // whole at start-up).
        var hex: [UInt8] = []
        hex.reserveCapacity(32)
        for byte in bytes[(base + 16)..<(base + 32)] {
            hex.append(hexDigits[Int(byte >> 4)])
            hex.append(hexDigits[Int(byte & 0xF)])
        }
        let peerID = String(decoding: hex, as: UTF8.self)
        let entry = InboxEntry(id: id, peerID: peerID, received: Date(timeIntervalSince1970: Double(millis) / 1000),
                               size: length - payloadHeader, offset: offset)
        return (entry, state)
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
