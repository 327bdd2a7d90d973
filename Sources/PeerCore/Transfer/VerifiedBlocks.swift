/// Which blocks of a partial file are verified (issue 12, point 4), and
/// the small record of them kept next to the partial file, so a resumed
/// transfer asks only for the blocks it lacks and never re-hashes what it
/// has.
///
/// The record, byte by byte (integers big-endian):
///
///     "PEERDB1\n" · file size u64 · block size u32 · bitmap · crc32 u32
///
/// where the bitmap holds one bit per block (block `i` is bit `7 - i % 8`
/// of byte `i / 8`) and the CRC-32 covers everything before it. A record
/// that is damaged, or made for another plan, is not believed: the
/// transfer starts that file over.
public struct VerifiedBlocks: Sendable, Equatable {
    /// The record's first bytes.
    public static let header: [UInt8] = Array("PEERDB1\n".utf8)

    /// The plan the blocks belong to.
    public let plan: BlockPlan
    private var bits: [UInt8]
    /// How many blocks are verified.
    public private(set) var count = 0

    /// None verified yet.
    public init(plan: BlockPlan) {
        self.plan = plan
        bits = [UInt8](repeating: 0, count: (plan.count + 7) / 8)
    }

    /// Whether block `index` is verified.
    public func contains(_ index: Int) -> Bool {
        index >= 0 && index < plan.count && bits[index / 8] & (0x80 >> UInt8(index % 8)) != 0
    }

    /// Block `index` was verified.
    public mutating func insert(_ index: Int) {
        guard index >= 0, index < plan.count, !contains(index) else { return }
        bits[index / 8] |= 0x80 >> UInt8(index % 8)
        count += 1
    }

    /// Whether every block is verified.
    public var isComplete: Bool { count == plan.count }

    /// The blocks still to come, in order.
    public var missing: [Int] { (0..<plan.count).filter { !contains($0) } }

    /// The record.
    public func encode() -> [UInt8] {
        var bytes = Self.header
        bytes += withUnsafeBytes(of: UInt64(plan.fileSize).bigEndian, Array.init)
        bytes += withUnsafeBytes(of: UInt32(plan.blockSize).bigEndian, Array.init)
        bytes += bits
        bytes += withUnsafeBytes(of: CRC32.checksum(bytes).bigEndian, Array.init)
        return bytes
    }

    /// Reads a record made for `plan`; nil when it is damaged or for
    /// another plan.
    public static func decode(_ bytes: [UInt8], plan: BlockPlan) -> VerifiedBlocks? {
        var blocks = VerifiedBlocks(plan: plan)
        let bitmapStart = header.count + 12
        guard bytes.count == bitmapStart + blocks.bits.count + 4, Array(bytes.prefix(header.count)) == header else { return nil }
        let stored = bytes.suffix(4).reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard CRC32.checksum(Array(bytes.dropLast(4))) == stored else { return nil }
        let size = bytes[header.count..<header.count + 8].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
        let blockSize = bytes[header.count + 8..<bitmapStart].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
        guard size == UInt64(plan.fileSize), blockSize == UInt32(plan.blockSize) else { return nil }
        for index in 0..<plan.count where bytes[bitmapStart + index / 8] & (0x80 >> UInt8(index % 8)) != 0 {
            blocks.insert(index)
        }
        return blocks
    }
}
