import PeerCore
import PeerProtocol

/// One accepted file of an ``IncomingTransfer``: where it starts, what
/// has arrived, and its partial file once bytes come.
@MainActor
final class IncomingFile {
    /// Its number in the offer.
    let index: Int
    /// Its checked path.
    let path: TransferPath
    /// What the offer said of it.
    let offered: OfferedFile
    /// The order its bytes must come in.
    var cursor: ReceiveCursor
    /// The hashes of its verified blocks, in order.
    var hashes: [[UInt8]]
    /// Set once bytes came (or at its end, for an empty file).
    var partial: PartialFile?
    /// Where it landed, relative to the transfer's folder.
    var savedAs: String?
    /// The last step runs on the disk queue.
    var finishing = false
    /// In place (or was, before a resume).
    var done = false

    init(index: Int, path: TransferPath, offered: OfferedFile, resume: ResumePoint) {
        self.index = index
        self.path = path
        self.offered = offered
        let plan = BlockPlan(fileSize: offered.size)
        switch resume {
        case .fresh:
            hashes = []
        case .from(let kept), .verifyFirst(let kept):
            hashes = kept
        case .complete:
            hashes = []
            done = true
        }
        cursor = ReceiveCursor(plan: plan, firstBlock: hashes.count)
    }

    /// The answer's first block.
    var firstBlock: UInt32 { done ? ResumePoint.completeMarker : UInt32(hashes.count) }

    /// Bytes already verified.
    var bytesHeld: Int64 { done ? offered.size : min(offered.size, Int64(hashes.count) * Int64(cursor.plan.blockSize)) }
}
