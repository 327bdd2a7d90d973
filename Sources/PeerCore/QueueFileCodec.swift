/// The on-disk form of a peer's queued messages: records of
/// `length u32 (big-endian) · bytes`, appended one after another.
///
/// A crash can leave the last record cut short; decoding stops before it and
/// reports how many bytes were whole, so the file can be trimmed.
public enum QueueFileCodec {
    /// One record.
    public static func encode(_ message: [UInt8]) -> [UInt8] {
        let n = UInt32(message.count)
        return [UInt8(n >> 24), UInt8((n >> 16) & 0xFF), UInt8((n >> 8) & 0xFF), UInt8(n & 0xFF)] + message
    }

    /// The whole records in `bytes`, and the length of the whole part.
    public static func decode(_ bytes: [UInt8]) -> (messages: [[UInt8]], wholeBytes: Int) {
        var messages: [[UInt8]] = []
        var offset = 0
        while bytes.count - offset >= 4 {
            let n = bytes[offset..<(offset + 4)].reduce(0) { $0 << 8 | Int($1) }
            guard bytes.count - offset - 4 >= n else { break }
            messages.append(Array(bytes[(offset + 4)..<(offset + 4 + n)]))
            offset += 4 + n
        }
        return (messages, offset)
    }
}
