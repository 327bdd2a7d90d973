/// How a file travels in blocks (issue 12, point 4): the block size is a
/// power of two from 128 KiB to 16 MiB, the smallest that cuts the file
/// into at most about 2,000 blocks, so the record of verified blocks stays
/// small and a resumed transfer resends less than one block.
package struct BlockPlan: Sendable, Equatable {
    /// The smallest block.
    package static let minBlockSize = 128 << 10
    /// The largest block.
    package static let maxBlockSize = 16 << 20
    /// The number of blocks aimed at (files over 32 GiB have more).
    package static let targetBlocks = 2000

    /// The file's size in bytes.
    package let fileSize: Int64
    /// The size of every block but the last.
    package let blockSize: Int

    /// The plan for a file of `fileSize` bytes.
    package init(fileSize: Int64) {
        precondition(fileSize >= 0, "a file size is never negative")
        self.fileSize = fileSize
        let wanted = (fileSize + Int64(Self.targetBlocks) - 1) / Int64(Self.targetBlocks)
        var size = Self.minBlockSize
        while Int64(size) < wanted && size < Self.maxBlockSize { size <<= 1 }
        blockSize = size
    }

    /// How many blocks (none for an empty file).
    package var count: Int { Int((fileSize + Int64(blockSize) - 1) / Int64(blockSize)) }

    /// The bytes of block `index`.
    package func range(of index: Int) -> Range<Int64> {
        precondition(index >= 0 && index < count, "block \(index) of \(count)")
        let start = Int64(index) * Int64(blockSize)
        return start..<min(start + Int64(blockSize), fileSize)
    }
}
