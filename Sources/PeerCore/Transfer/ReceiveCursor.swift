/// The receiving end of one file (docs/protocol.md §8), decided without
/// I/O: chunks must come in order from the first block asked for, never
/// cross a block's end, and stop at each block's end until its `block`
/// message arrives; the file's end only after its last block. Anything
/// else is a protocol error and ends the transfer.
package struct ReceiveCursor: Sendable, Equatable {
    /// Why a message does not fit.
    package enum Refusal: Error, Sendable, Equatable, CustomStringConvertible {
        /// A chunk not at the expected offset.
        case outOfOrder(expected: Int64, got: UInt64)
        /// A chunk that crosses a block's end, or comes while a block waits for its hash.
        case badChunk(String)
        /// A `block` message for a block that is not complete.
        case unexpectedBlock(Int)
        /// The file's end before its last block.
        case earlyEnd

        /// Words for the cancel message.
        package var description: String {
            switch self {
            case .outOfOrder(let expected, let got): return "a chunk at offset \(got) where \(expected) was expected"
            case .badChunk(let why): return why
            case .unexpectedBlock(let block): return "a block message for block \(block), which is not complete"
            case .earlyEnd: return "the file's end before its last block"
            }
        }
    }

    /// The file's blocks.
    package let plan: BlockPlan
    /// The next byte expected.
    package private(set) var offset: Int64
    /// A block whose bytes are all here and whose hash has not come yet.
    package private(set) var awaitingHash: Int?

    /// A file that starts at block `firstBlock`.
    package init(plan: BlockPlan, firstBlock: Int) {
        self.plan = plan
        offset = min(Int64(firstBlock) * Int64(plan.blockSize), plan.fileSize)
    }

    /// Whether every byte is here and verified.
    package var isComplete: Bool { offset == plan.fileSize && awaitingHash == nil }

    /// `count` bytes at `at` arrived. Returns the block they complete, if any.
    package mutating func chunk(at: UInt64, count: Int) -> Result<Int?, Refusal> {
        guard awaitingHash == nil else { return .failure(.badChunk("a chunk before the hash of block \(awaitingHash ?? 0)")) }
        guard at == UInt64(offset) else { return .failure(.outOfOrder(expected: offset, got: at)) }
        guard offset < plan.fileSize else { return .failure(.badChunk("a chunk past the file's end")) }
        let block = Int(offset / Int64(plan.blockSize))
        let blockEnd = plan.range(of: block).upperBound
        guard count > 0, Int64(count) <= blockEnd - offset else { return .failure(.badChunk("a chunk that crosses the end of block \(block)")) }
        offset += Int64(count)
        guard offset == blockEnd else { return .success(nil) }
        awaitingHash = block
        return .success(block)
    }

    /// The hash of `block` arrived (the shell compares it); nil when it fits.
    package mutating func blockHash(_ block: Int) -> Refusal? {
        guard awaitingHash == block else { return .unexpectedBlock(block) }
        awaitingHash = nil
        return nil
    }

    /// The file's end arrived; nil when it fits.
    package func end() -> Refusal? {
        isComplete ? nil : .earlyEnd
    }
}
