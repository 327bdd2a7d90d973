/// Splits a TCP byte stream into Noise messages, each preceded by a 2-byte
/// big-endian length (the Noise spec's framing). A zero length is an error:
/// every Noise message peerd sends is at least 16 bytes (the tag) or 32 (a key).
public struct FrameReader: Sendable {
    private var buffer: [UInt8] = []
    /// The largest frame accepted now; a longer length prefix is an error
    /// before its bytes are buffered (peerd allows 8 KiB until a session is
    /// authenticated and accepted, then the Noise maximum).
    public var maxFrame = 65535

    /// An empty reader.
    public init() {}

    /// Bytes held that do not yet form a frame.
    public var pendingCount: Int { buffer.count }

    /// A bad length found after whole frames: raised by the next call.
    private var failure: WireError?

    /// Adds bytes; returns the whole frames now available. A bad length
    /// prefix throws; when whole frames came before it in the same bytes,
    /// they are returned first and the error is thrown by the next call
    /// (`append([])` surfaces it), so a receiver handles a frame and the bad
    /// length after it in that order, however TCP split them.
    public mutating func append(_ bytes: some Collection<UInt8>) throws(WireError) -> [[UInt8]] {
        if let failure { throw failure }
        buffer.append(contentsOf: bytes)
        var frames: [[UInt8]] = []
        var start = 0
        while buffer.count - start >= 2 {
            let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
            guard length > 0, length <= maxFrame else {
                guard frames.isEmpty else {
                    failure = .badFrameLength(length)
                    buffer.removeAll()
                    return frames
                }
                throw .badFrameLength(length)
            }
            guard buffer.count - start - 2 >= length else { break }
            frames.append(Array(buffer[(start + 2)..<(start + 2 + length)]))
            start += 2 + length
        }
        buffer.removeFirst(start)
        return frames
    }
}
