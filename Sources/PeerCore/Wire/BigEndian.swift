/// Big-endian integers in byte arrays (or buffers): the one writer and reader the wire
/// codecs and the block record share.
enum BigEndian {
    /// Appends the low `width` bytes of `value`, most significant first.
    static func append(_ value: UInt64, width: Int, to out: inout [UInt8]) {
        for shift in (0..<width).reversed() { out.append(UInt8(truncatingIfNeeded: value >> (8 * UInt64(shift)))) }
    }

    /// Reads `width` bytes at `offset` (the caller checked they are there).
    static func read<Bytes: RandomAccessCollection<UInt8>>(_ bytes: Bytes, at offset: Int, width: Int) -> UInt64 where Bytes.Index == Int {
        bytes[offset..<(offset + width)].reduce(0) { $0 << 8 | UInt64($1) }
    }
}
