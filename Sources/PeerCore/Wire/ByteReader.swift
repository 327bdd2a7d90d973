/// Reads big-endian fields from a byte array, never past its end.
struct ByteReader {
    private let bytes: [UInt8]
    private var offset = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var isAtEnd: Bool { offset == bytes.count }

    mutating func u8(_ what: String) throws(WireError) -> UInt8 {
        guard offset < bytes.count else { throw .truncated(what) }
        offset += 1
        return bytes[offset - 1]
    }

    mutating func u16(_ what: String) throws(WireError) -> UInt16 {
        UInt16(try unsigned(2, what))
    }

    mutating func u32(_ what: String) throws(WireError) -> UInt32 {
        UInt32(try unsigned(4, what))
    }

    mutating func u64(_ what: String) throws(WireError) -> UInt64 {
        try unsigned(8, what)
    }

    mutating func bytes(_ count: Int, _ what: String) throws(WireError) -> [UInt8] {
        guard count >= 0, bytes.count - offset >= count else { throw .truncated(what) }
        offset += count
        return Array(bytes[(offset - count)..<offset])
    }

    mutating func text(_ count: Int, _ what: String) throws(WireError) -> String {
        let raw = try bytes(count, what)
        guard let text = String(validating: raw, as: UTF8.self) else { throw .invalidText(what) }
        return text
    }

    mutating func rest() -> [UInt8] {
        defer { offset = bytes.count }
        return Array(bytes[offset...])
    }

    private mutating func unsigned(_ width: Int, _ what: String) throws(WireError) -> UInt64 {
        let raw = try bytes(width, what)
        return raw.reduce(0) { $0 << 8 | UInt64($1) }
    }
}
