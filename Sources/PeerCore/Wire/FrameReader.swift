/// Splits a TCP byte stream into Noise messages, each preceded by a 2-byte
/// big-endian length (the Noise spec's framing). A zero length is an error:
/// every Noise message peerd sends is at least 16 bytes (the tag) or 32 (a key).
package struct FrameReader: Sendable {
    private var buffer: [UInt8] = []
    /// The largest frame accepted now; a longer length prefix is an error
    /// before its bytes are buffered (peerd allows 8 KiB until a session is
    /// authenticated and accepted, then the Noise maximum).
    package var maxFrame = 65535

    /// An empty reader.
    package init() {}

    /// Bytes held that do not yet form a frame.
    package var pendingCount: Int { buffer.count }

    /// A bad length found after whole frames: raised by the next call.
    private var failure: WireError?

    /// Adds bytes; returns the whole frames now available. A bad length
    /// prefix throws; when whole frames came before it in the same bytes,
    /// they are returned first and the error is thrown by the next call
    /// (`append([])` surfaces it), so a receiver handles a frame and the bad
    /// length after it in that order, however TCP split them.
    package mutating func append(_ bytes: some Collection<UInt8>) throws(WireError) -> [[UInt8]] {
        if let failure { throw failure }
        buffer.append(contentsOf: bytes)
        var frames: [[UInt8]] = []
        var start = 0
        while buffer.count - start >= 2 {
            let length = Int(buffer[start]) << 8 | Int(buffer[start + 1])
            guard Self.isValid(length, maxFrame: maxFrame) else {
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

    /// The next whole frame at the start of `bytes`: the range of its
    /// payload (after the 2-byte length), or nil while more bytes are
    /// needed; a bad length throws. The daemon's receive path scans its
    /// read buffer with this and opens each frame where it lies;
    /// ``append(_:)`` is the copying form.
    package static func nextFrame(in bytes: UnsafeRawBufferPointer, maxFrame: Int) throws(WireError) -> Range<Int>? {
        guard bytes.count >= 2 else { return nil }
        let length = Int(bytes[0]) << 8 | Int(bytes[1])
        guard isValid(length, maxFrame: maxFrame) else { throw .badFrameLength(length) }
        guard bytes.count - 2 >= length else { return nil }
        return 2..<(2 + length)
    }

    private static func isValid(_ length: Int, maxFrame: Int) -> Bool { length > 0 && length <= maxFrame }
}
