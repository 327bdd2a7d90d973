/// What the sender of a transfer does next (docs/protocol.md §8): the
/// accepted files in offer order, each from its first block, in chunks
/// that never cross a block's end; a block's hash after its last chunk;
/// the file's end after its last block. Blocks before a resumed file's
/// first block are read and hashed but not sent, for the file's hash.
/// Decided without I/O; the shell reads, hashes and sends.
package struct SendCursor: Sendable, Equatable {
    /// One accepted file.
    package struct File: Sendable, Equatable {
        /// Its number in the offer.
        package var index: UInt32
        /// Its blocks.
        package var plan: BlockPlan
        /// The first block to send.
        package var firstBlock: Int

        /// A file to send.
        package init(index: UInt32, size: Int64, firstBlock: Int) {
            self.index = index
            plan = BlockPlan(fileSize: size)
            self.firstBlock = min(firstBlock, plan.count)
        }
    }

    /// The next thing to do.
    package enum Step: Sendable, Equatable {
        /// Read `length` bytes of file `file` at `offset` and hash them;
        /// send them in a `chunk` when `send`. `endsBlock` names the block
        /// these bytes complete, whose `block` message follows when sent.
        case bytes(file: UInt32, offset: Int64, length: Int, send: Bool, endsBlock: Int?)
        /// Send the file's end (its hash of block hashes).
        case fileEnd(file: UInt32)
        /// Every file is sent.
        case done
    }

    private let files: [File]
    private var current = 0
    private var offset: Int64 = 0

    /// A cursor over the accepted `files`, in offer order.
    package init(files: [File]) {
        self.files = files
    }

    /// Files fully sent so far.
    package var filesDone: Int { current }

    /// The next step, with chunks of at most `maxChunk` bytes.
    package mutating func next(maxChunk: Int) -> Step {
        guard current < files.count else { return .done }
        let file = files[current]
        guard offset < file.plan.fileSize else {
            current += 1
            offset = 0
            return .fileEnd(file: file.index)
        }
        let block = Int(offset / Int64(file.plan.blockSize))
        let blockEnd = file.plan.range(of: block).upperBound
        let send = block >= file.firstBlock
        // Blocks only hashed are read a whole block at a time.
        let length = Int(min(blockEnd - offset, Int64(send ? maxChunk : file.plan.blockSize)))
        let start = offset
        offset += Int64(length)
        return .bytes(file: file.index, offset: start, length: length, send: send, endsBlock: offset == blockEnd ? block : nil)
    }
}
